// The demo page: one MemoryController on IndexedDB, a chat on the left and
// the inspector on the right. Every turn goes user message → remember (if
// asked) → buildContext(query) → assistant → add, and the inspector is
// re-rendered from the controller afterwards, so what it shows is what is
// stored, not what the page thinks it stored.
import { getLang, initialLang, setLang, t, SUGGESTIONS } from "./i18n.js";
import { h, messageText, renderInspector } from "./inspector.js";
import { PROCEDURES, SYSTEM_PROMPT, chatCompletion, getWeather, memoryIntent, offlineTurn, replyLang, weatherReply } from "./assistant.js";

const MODEL = "gpt-4o-mini";
const NAMESPACE = "demo";
const THRESHOLD = 0.8;
const params = new URLSearchParams(location.search);
// ?maxTokens= shrinks working memory so compaction shows after a few turns (the tests use 300).
const workingMax = Math.min(100_000, Math.max(100, Number.parseInt(params.get("maxTokens") ?? "", 10) || 1000));
const RESERVE = 300;
const contextMax = workingMax + 1000; // room for procedures, preferences, knowledge and summaries too

const $ = (id) => document.getElementById(id);
let memory;
let lastCtx = null;
let compactions = [];
let notice = null; // a one-off line shown under the chat (errors, "forgotten")
// The endpoint settings, API key included, live only in this variable: never
// written to localStorage, IndexedDB, cookies or the URL.
let endpoint = null;

function setState(state) {
  document.body.dataset.state = state;
  const busy = state !== "ready";
  $("input").disabled = busy;
  $("send").disabled = busy;
  $("forget").disabled = busy;
}

async function addMessage(message) {
  const r = await memory.add(message);
  if (r.compaction) compactions.push({ ...r.compaction, at: Date.now() });
  return r;
}

const build = (query) => memory.buildContext({ query, maxTokens: contextMax, reserveOutput: RESERVE });

/** Offline calls are billed as if the same context had gone to MODEL, so cost is visible without a key. */
async function chargeOffline(ctx, reply) {
  await memory.recordUsage({ promptTokens: ctx.tokens, completionTokens: memory.countTokens(messageText(reply)) });
}

async function chargeOnline(usage) {
  if (!usage) return;
  const record = {
    promptTokens: usage.prompt_tokens ?? 0,
    completionTokens: usage.completion_tokens ?? 0,
    cachedPromptTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
  };
  try {
    await memory.recordUsage({ ...record, model: endpoint.model });
  } catch (e) {
    // A model outside the price table: still count it, at the controller's model's prices.
    if (e?.code !== "UNKNOWN_MODEL") throw e;
    await memory.recordUsage(record);
  }
}

function runTool(call) {
  try {
    if (call.function.name === "get_weather") return getWeather(JSON.parse(call.function.arguments));
    return { error: `unknown tool ${call.function.name}` };
  } catch {
    return { error: "arguments are not valid JSON" };
  }
}

async function offlineReply(text, stored) {
  const roles = new Map((await memory.history()).map((x) => [x.id, x.message.role]));
  let ctx = await build(text);
  const turn = offlineTurn({ text, ctx, stored, roleOf: (id) => roles.get(id) });
  let reply = { role: "assistant", content: turn.content };
  if (turn.toolCall) {
    // A tool-call group (call + result) that the controller keeps whole.
    const id = `call_${Math.random().toString(36).slice(2, 10)}`;
    const call = {
      role: "assistant",
      content: null,
      tool_calls: [{ id, type: "function", function: { name: turn.toolCall.name, arguments: JSON.stringify(turn.toolCall.arguments) } }],
    };
    await chargeOffline(ctx, call);
    await addMessage(call);
    const result = runTool(call.tool_calls[0]);
    await addMessage({ role: "tool", tool_call_id: id, content: JSON.stringify(result) });
    ctx = await build(text);
    reply = { role: "assistant", content: weatherReply(result, replyLang(text)) };
  }
  await chargeOffline(ctx, reply);
  await addMessage(reply);
  lastCtx = ctx;
}

async function endpointReply(text) {
  // At most a few tool rounds, so a model that keeps calling tools cannot loop forever.
  for (let round = 0; round < 4; round++) {
    const ctx = await build(text);
    lastCtx = ctx;
    const { message, usage } = await chatCompletion(endpoint, ctx, RESERVE);
    await chargeOnline(usage);
    await addMessage(message);
    if (!message.tool_calls) return;
    for (const call of message.tool_calls)
      await addMessage({ role: "tool", tool_call_id: call.id, content: JSON.stringify(runTool(call)) });
  }
}

async function send(text) {
  text = text.trim();
  if (!text || document.body.dataset.state !== "ready") return;
  setState("busy");
  notice = null;
  $("input").value = "";
  try {
    await addMessage({ role: "user", content: text });
    renderChat(await memory.history());
    const intent = memoryIntent(text);
    if (intent) await memory.remember(intent);
    if (endpoint) await endpointReply(text);
    else await offlineReply(text, intent);
  } catch (e) {
    console.error(e);
    notice = { error: true, text: t("error", { message: e?.message ?? String(e) }) };
  }
  await refresh();
  setState("ready");
  $("input").focus();
}

function bubble(item) {
  const m = item.message;
  const cls = `bubble ${m.role} ${item.place}`;
  if (m.role === "system")
    return h("li", { class: `${cls} pinned-note`, title: item.id }, h("b", {}, t("pinnedPrompt")), " ", messageText(m));
  if (m.tool_calls) {
    return h(
      "li",
      { class: `${cls} tool`, title: item.id },
      m.tool_calls.map((c) => h("code", {}, t("toolCall", { name: c.function.name, args: c.function.arguments }))),
    );
  }
  if (m.role === "tool")
    return h(
      "li",
      { class: `${cls} tool`, title: item.id },
      h("code", {}, t("toolResult", { name: "get_weather", result: messageText(m) })),
    );
  return h("li", { class: cls, title: `${item.id} · ${item.tokens} tokens · ${item.place}` }, h("div", { class: "body" }, messageText(m)));
}

function renderChat(history) {
  const list = $("messages");
  const items = history.map(bubble);
  if (history.length <= 1) items.push(h("li", { class: "hint" }, t("emptyChat")));
  if (notice) items.push(h("li", { class: `hint ${notice.error ? "error" : ""}` }, notice.text));
  list.replaceChildren(...items);
  list.scrollTop = list.scrollHeight;
}

function renderChrome() {
  $("lang").textContent = t("lang");
  $("mode").textContent = endpoint ? t("modeOnline", { model: endpoint.model }) : t("modeOffline");
  $("mode-dot").className = `dot ${endpoint ? "online" : "offline"}`;
  $("suggestions").replaceChildren(
    h("span", { class: "muted" }, t("tryThese")),
    ...SUGGESTIONS[getLang()].map((s) => h("button", { type: "button", class: "chip", onclick: () => send(s) }, s)),
  );
}

/** Re-reads everything from the controller and redraws both panels. */
async function refresh() {
  const [history, episodes, facts] = await Promise.all([memory.history(), memory.episodes(), memory.facts()]);
  renderChrome();
  renderChat(history);
  renderInspector($("inspector"), {
    ctx: lastCtx,
    stats: memory.stats(),
    history,
    episodes,
    facts,
    procedures: PROCEDURES,
    compactions,
    threshold: THRESHOLD,
    simulatedModel: endpoint ? null : MODEL,
  });
}

/** Memory that every session starts from: the pinned system prompt (once) and the procedures. */
async function seed() {
  await memory.setProcedures(PROCEDURES);
  if ((await memory.history()).length === 0) await addMessage({ role: "system", content: SYSTEM_PROMPT });
}

async function forgetAll() {
  if (!confirm(t("forgetConfirm"))) return;
  setState("busy");
  const r = await memory.forget({ namespace: true });
  compactions = [];
  lastCtx = null;
  await seed();
  notice = { text: t("forgotten", { messages: r.messages, facts: r.facts }) };
  await refresh();
  setState("ready");
}

function wire() {
  $("send").addEventListener("click", () => send($("input").value));
  $("input").addEventListener("keydown", (e) => {
    // isComposing: Enter that confirms a Chinese IME candidate must not send.
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      send($("input").value);
    }
  });
  $("lang").addEventListener("click", async () => {
    setLang(getLang() === "zh" ? "en" : "zh");
    if (memory) await refresh();
    else renderChrome();
  });
  $("forget").addEventListener("click", () => forgetAll().catch(fail));
  $("use-endpoint").addEventListener("click", async () => {
    const baseURL = $("base-url").value.trim();
    const model = $("model").value.trim();
    const apiKey = $("api-key").value;
    if (!baseURL || !model || !apiKey) return;
    endpoint = { baseURL, model, apiKey };
    $("api-key").value = ""; // the key now lives only in `endpoint`
    $("endpoint").open = false;
    await refresh();
  });
  $("use-offline").addEventListener("click", async () => {
    endpoint = null;
    $("endpoint").open = false;
    await refresh();
  });
}

function fail(e) {
  console.error(e);
  setState("error");
  $("inspector").replaceChildren(h("p", { class: "empty error" }, t("error", { message: e?.message ?? String(e) })));
}

async function main() {
  setLang(initialLang());
  renderChrome();
  wire();
  // Imported here rather than statically so a failed wasm load shows on the page.
  const { MemoryController, indexedDBStorage } = await import("../dist/browser.js");
  memory = await MemoryController.create({
    namespace: NAMESPACE,
    model: MODEL,
    workingMemory: { maxTokens: workingMax, compressionThreshold: THRESHOLD },
    storage: indexedDBStorage("agent-memory-demo"),
  });
  await seed();
  // Compactions from earlier visits, rebuilt from the stored episodes.
  compactions = (await memory.episodes()).map((e) => ({ restored: true, episodeId: e.id, messages: e.messageIds.length, at: e.createdAt }));
  const lastUser = (await memory.history()).findLast((x) => x.message.role === "user");
  // Show the budget right away; a context that cannot be built yet (say, a
  // huge last turn under a tiny ?maxTokens) just leaves the bar empty.
  lastCtx = await build(lastUser ? messageText(lastUser.message) : undefined).catch(() => null);
  await refresh();
  setState("ready");
}

main().catch(fail);
