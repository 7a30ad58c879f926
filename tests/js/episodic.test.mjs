// Episodic memory through the built package, with the built-in summarizer
// talking to a local OpenAI-compatible server over real fetch: every answer
// shape and failure has a defined outcome and loses nothing.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { MemoryController, memoryStorage, openAICompatibleSummarizer, openAICompatibleEmbedder } from "../../dist/node.js";
import { startFakeOpenAI, chat, json, text, hang, stallBody } from "./hooks/fake-openai.mjs";

let server;
before(async () => (server = await startFakeOpenAI()));
after(() => server.close());

const SUMMARY = {
  summary: "用户在计划成都之行。",
  keyPoints: ["6月12日出发"],
  pendingTasks: ["订酒店"],
  facts: [{ key: "trip_city", value: "Chengdu" }],
  preferences: [{ key: "allergy", value: "peanuts" }],
  importance: 0.9,
};
const API_KEY = "sk-test-secret-key-do-not-store-0123456789";

function summarizer(timeoutMs = 400) {
  return openAICompatibleSummarizer({ baseURL: server.baseURL, apiKey: API_KEY, model: "gpt-4o-mini", timeoutMs, maxRetries: 1 });
}

/**
 * Wraps a summarizer hook: `first` resolves when it is first called,
 * `calls()` counts calls, `most()` is the most that were in flight at once.
 */
function watch(hook) {
  let called;
  const first = new Promise((r) => (called = r));
  let calls = 0;
  let inFlight = 0;
  let most = 0;
  const watched = async (request) => {
    calls++;
    most = Math.max(most, ++inFlight);
    called();
    try {
      return await hook(request);
    } finally {
      inFlight--;
    }
  };
  return { hook: watched, first, calls: () => calls, most: () => most };
}

/** Adds `n` turns to a small working memory so that compaction happens, then waits for it. */
async function converse(memory, n, prefix = "turn") {
  const ids = [];
  for (let i = 0; i < n; i++)
    ids.push(
      (
        await memory.add({
          role: i % 2 ? "assistant" : "user",
          content: `${prefix} ${i}: 我们讨论成都的行程 and the hotel near Chunxi Road, day ${i}`,
        })
      ).id,
    );
  await memory.flush();
  return ids;
}

async function checkNothingLost(memory, ids, source) {
  const history = await memory.history();
  assert.deepEqual(
    history.map((h) => h.id),
    ids,
    "every message in history, in order",
  );
  const episodes = await memory.episodes();
  assert.ok(episodes.length > 0, "compaction happened");
  const covered = episodes.flatMap((e) => e.messageIds);
  const archived = history.filter((h) => h.place === "archived").map((h) => h.id);
  assert.deepEqual(covered, archived, "an episode for every compacted range, once each");
  for (const e of episodes) assert.equal(e.summarySource, source, `${e.id}: ${e.summary.slice(0, 60)}`);
  return episodes;
}

const shapes = [
  ["fenced JSON", "```json\n" + JSON.stringify(SUMMARY) + "\n```", "model"],
  ["JSON inside prose", "Sure! Here it is:\n" + JSON.stringify(SUMMARY) + "\nLet me know.", "model"],
  ["partial JSON", JSON.stringify(SUMMARY).slice(0, 120), "model"],
  ["plain text", "The user and the assistant planned a trip to Chengdu.", "model"],
  ["an empty answer", "", "fallback"],
  ["JSON without a summary", '{"notes": "nothing useful"}', "fallback"],
];
for (const [name, content, source] of shapes) {
  test(`summarizer answers with ${name}: summarySource ${source}, nothing lost`, async () => {
    server.reset();
    server.script(...Array.from({ length: 20 }, () => chat(content, { model: "gpt-4o-mini" })));
    const memory = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 200 }, summarizer: summarizer() });
    const ids = await converse(memory, 16);
    const episodes = await checkNothingLost(memory, ids, source);
    if (name === "fenced JSON") {
      assert.equal(episodes[0].summary, SUMMARY.summary);
      assert.deepEqual(episodes[0].pendingTasks, ["订酒店"]);
      const facts = await memory.facts();
      assert.ok(facts.some((f) => f.key === "trip_city" && f.text === "Chengdu"));
      assert.ok(facts.some((f) => f.kind === "preference" && f.text === "peanuts"));
      const cost = memory.stats().cost.byPurpose.find((p) => p.purpose === "summarizer");
      assert.ok(cost.calls > 0 && cost.usd > 0, "the summarizer's usage is charged at its model's price");
    }
  });
}

const failures = [
  ["HTTP 500 every time", () => json(500, { error: { message: "boom" } })],
  ["HTTP 429 with retry-after, then 500", () => json(429, { error: { message: "slow down" } }, { "retry-after": "0" })],
  ["a timeout", () => hang()],
  ["a connection that stalls mid-body", () => stallBody()],
  ["malformed JSON", () => text(200, '{"choices": [ {"message": ')],
  ["a non-JSON body", () => text(200, "<html>502 Bad Gateway</html>")],
];
for (const [name, behaviour] of failures) {
  test(`summarizer fails with ${name}: the offline summary is used, nothing lost`, async () => {
    server.reset();
    server.script(...Array.from({ length: 40 }, behaviour));
    const memory = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 200 }, summarizer: summarizer(300) });
    const ids = await converse(memory, 12);
    await checkNothingLost(memory, ids, "fallback");
  });
}

test("many adds while a slow summary is in flight: nothing lost, nothing summarized twice", async () => {
  server.reset();
  let release;
  const gate = new Promise((r) => (release = r));
  const slow = (req, res, record) => gate.then(() => chat(JSON.stringify(SUMMARY), { model: "gpt-4o-mini" })(req, res, record));
  server.script(...Array.from({ length: 30 }, () => slow));
  const watched = watch(summarizer(5000));
  // A backlog large enough that every range waits for the model.
  const memory = await MemoryController.create({
    model: "gpt-4o",
    workingMemory: { maxTokens: 200 },
    summarizer: watched.hook,
    summaryBacklog: 40,
  });
  const adds = [];
  for (let i = 0; i < 40; i++)
    adds.push(memory.add({ role: i % 2 ? "assistant" : "user", content: `message ${i} 关于杭州的行程和预算 ${i}` }));
  const results = await Promise.all(adds); // resolve while the summary is still pending
  assert.equal(results.length, 40);
  await watched.first;
  assert.equal(watched.calls(), 1, "one summary at a time, while 40 adds went through");
  release();
  await memory.flush();
  assert.equal(watched.most(), 1, "never two requests in flight");
  const episodes = await checkNothingLost(
    memory,
    results.map((r) => r.id),
    "model",
  );
  assert.equal(episodes.length, watched.calls(), "one request per range, none merged");
});

test("preferences stated early in Chinese and English survive 20 compactions and lead the context; a changed one supersedes", async () => {
  const memory = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 150 } });
  await memory.add({ role: "user", content: "记住：我对花生过敏。" });
  await memory.add({ role: "user", content: "I prefer answers in bullet points." });
  let compactions = 0;
  for (let i = 0; compactions < 20; i++) {
    const r = await memory.add({
      role: i % 2 ? "assistant" : "user",
      content: `filler ${i}: the weather in Hangzhou is mild and 西湖 is beautiful today`,
    });
    if (r.compaction) compactions++;
  }
  const ctx = await memory.buildContext({ maxTokens: 800 });
  const pinned = ctx.messages.find((m) => m.content.startsWith('<memory type="preferences">'));
  assert.ok(pinned, "a preferences block");
  assert.match(pinned.content, /花生过敏/);
  assert.match(pinned.content, /bullet points/);
  assert.equal(ctx.tokens, memory.countMessages(ctx.messages, ctx.tools));
  // A model-keyed preference supersedes the old value; the history stays.
  server.reset();
  server.script(
    chat(JSON.stringify({ summary: "s1", preferences: [{ key: "answer_language", value: "English" }] }), { model: "gpt-4o-mini" }),
    ...Array.from({ length: 10 }, () =>
      chat(JSON.stringify({ summary: "s2", preferences: [{ key: "answer_language", value: "Chinese" }] }), { model: "gpt-4o-mini" }),
    ),
  );
  const m2 = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 150 }, summarizer: summarizer(2000) });
  await converse(m2, 30);
  const live = (await m2.facts()).filter((f) => f.key === "preference:answer_language");
  assert.deepEqual(
    live.map((f) => f.text),
    ["Chinese"],
  );
  assert.deepEqual((await m2.factHistory("preference:answer_language")).map((f) => f.text).slice(0, 2), ["English", "Chinese"]);
});

test("recall: an old topic comes back hundreds of turns later in the recall block, dated; the note shows the newest episodes", async () => {
  let now = Date.UTC(2026, 0, 1);
  const clock = () => (now += 60_000);
  const memory = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 200 }, clock });
  await memory.add({ role: "user", content: "我们的护照办理：需要带户口本和两张白底照片，去出入境管理局。" });
  await memory.add({ role: "assistant", content: "Passport renewal needs the household register and two photos with a white background." });
  for (let i = 0; i < 300; i++)
    await memory.add({ role: i % 2 ? "assistant" : "user", content: `daily chat ${i} about cooking dinner, groceries and the gym` });
  const question = "办护照需要带什么材料？passport photos";
  await memory.add({ role: "user", content: question });
  const ctx = await memory.buildContext({ maxTokens: 1200, query: question, episodicTokens: 150 });
  const episodes = await memory.episodes();
  assert.ok(
    episodes.some((e) => /护照|Passport/.test(e.summary)),
    "the passport turns were summarized",
  );
  const block = ctx.messages[ctx.sections.knowledge.message];
  assert.match(block.content, /\n- 2026-01-01 (user|assistant): (我们的护照办理|Passport renewal)/, "recalled with its date and speaker");
  assert.equal(ctx.messages[ctx.sections.knowledge.message + 1].content, question, "right before the question");
  assert.equal(ctx.cache.messages, ctx.sections.knowledge.message);
  // The note does not depend on the query: the newest episodes.
  assert.equal(ctx.sections.summary.episodeIds.at(-1), episodes.at(-1).id);
  const other = await memory.buildContext({ maxTokens: 1200, query: "gym", episodicTokens: 150 });
  assert.deepEqual(other.messages.slice(0, other.cache.messages), ctx.messages.slice(0, ctx.cache.messages));
});

test("task history: a task's completed steps and pending tasks, in order, within a budget", async () => {
  server.reset();
  server.script(
    ...Array.from({ length: 20 }, (_, i) =>
      chat(JSON.stringify({ summary: `step ${i} done: checked flights`, pendingTasks: [`book hotel (after step ${i})`] }), {
        model: "gpt-4o-mini",
      }),
    ),
  );
  const memory = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 200 }, summarizer: summarizer(2000) });
  for (let i = 0; i < 24; i++)
    await memory.add(
      { role: i % 2 ? "assistant" : "user", content: `trip task message ${i}: compare flights CA1234 and MU5678 for June 12` },
      { taskId: "trip" },
    );
  await memory.flush();
  const episodes = await memory.episodes();
  assert.ok(episodes.length >= 2 && episodes.every((e) => e.taskId === "trip"));
  const ctx = await memory.buildContext({ maxTokens: 1500, taskId: "trip", taskTokens: 300 });
  const block = ctx.messages.find((m) => m.content.startsWith('<memory type="task">'));
  assert.ok(block && ctx.sections.task > 0 && ctx.sections.task <= 300);
  const steps = [...block.content.matchAll(/done: step (\d+)/g)].map((m) => Number(m[1]));
  assert.deepEqual(
    steps,
    [...steps].sort((a, b) => a - b),
    "in order",
  );
  assert.match(block.content, /pending: book hotel/);
  await assert.rejects(memory.add({ role: "user", content: "x" }, { taskId: "" }), { code: "INVALID_INPUT" });
});

test("API keys given to hooks are never stored", async () => {
  server.reset();
  const storage = memoryStorage();
  const embedder = openAICompatibleEmbedder({ baseURL: server.baseURL, apiKey: API_KEY, model: "text-embedding-3-small", dimensions: 4 });
  server.script(...Array.from({ length: 20 }, () => chat(JSON.stringify(SUMMARY), { model: "gpt-4o-mini" })));
  const memory = await MemoryController.create({
    namespace: "k",
    workingMemory: { maxTokens: 200 },
    storage,
    summarizer: summarizer(2000),
    embedder,
  });
  await converse(memory, 16);
  await memory.remember({ text: "the meeting is on Friday" });
  await memory.search("meeting");
  await memory.buildContext({ maxTokens: 800, query: "meeting" });
  const bytes = Buffer.concat((await storage.loadRange([])).map((e) => Buffer.concat([Buffer.from(e.key.join("/")), e.data])));
  assert.ok(bytes.length > 1000);
  assert.ok(!bytes.includes(API_KEY) && !bytes.includes("sk-test"), "an API key reached storage");
});

test("forgetting a message while its range is being summarized: the summary cannot quote it", async () => {
  server.reset();
  let release;
  const gate = new Promise((r) => (release = r));
  // The model would quote the secret; its answer must not be used for a range that lost a message.
  const quoting = (req, res, record) =>
    gate.then(() => chat(JSON.stringify({ summary: "The user said their PIN is 8812." }), { model: "gpt-4o-mini" })(req, res, record));
  server.script(quoting, ...Array.from({ length: 10 }, () => chat(JSON.stringify(SUMMARY), { model: "gpt-4o-mini" })));
  const storage = memoryStorage();
  const watched = watch(summarizer(5000));
  const memory = await MemoryController.create({ namespace: "race", workingMemory: { maxTokens: 200 }, storage, summarizer: watched.hook });
  const { id } = await memory.add({ role: "user", content: "my PIN is 8812, keep it secret" });
  for (let i = 0; i < 12; i++)
    await memory.add({ role: i % 2 ? "user" : "assistant", content: `message ${i} about the weekend plans in 杭州 and the budget` });
  await watched.first;
  await memory.forget(id); // while the summary of its range is still being written
  release();
  await memory.flush();
  const bytes = Buffer.concat((await storage.loadRange([])).map((e) => e.data)).toString("utf8");
  assert.ok(!bytes.includes("8812"), "the forgotten PIN reached storage");
  assert.ok((await memory.episodes()).every((e) => !e.summary.includes("8812")));
  assert.ok(!(await memory.history()).some((h) => h.id === id));
});
