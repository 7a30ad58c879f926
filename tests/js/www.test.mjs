// The demo page (www/) in headless Chromium (Debian's chromium via
// playwright-core), served by scripts/demo-server.mjs: a bilingual
// conversation triggers compaction and the inspector shows it (episodes,
// budget bar, preferences, compaction log); the offline assistant answers a
// question from memory after the turn that taught it was archived; an
// OpenAI-compatible endpoint (a local fake) gets the built context and tools,
// and its key is stored nowhere; a reload restores everything; "forget
// everything" empties it; no console or page errors. Leaves a screenshot in
// test-artifacts/demo.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer, get } from "node:http";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { start } from "../../scripts/demo-server.mjs";
import { launchChromium, watchErrors } from "./harness.mjs";

const artifacts = fileURLToPath(new URL("../../test-artifacts/", import.meta.url));
const KEY = "sk-test-never-stored-4242";
const errors = [];
const requests = []; // bodies and headers the fake endpoint received
let server, fake, browser, page, base;

// A stand-in for an OpenAI-compatible endpoint on another origin (so CORS is exercised too).
function fakeEndpoint() {
  const srv = createServer((req, res) => {
    const cors = { "access-control-allow-origin": "*", "access-control-allow-headers": "authorization, content-type" };
    if (req.method === "OPTIONS") return res.writeHead(204, cors).end();
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      requests.push({ url: req.url, authorization: req.headers.authorization, body: JSON.parse(body) });
      const reply = {
        choices: [{ message: { role: "assistant", content: "(fake model) Short answer: yes." } }],
        usage: { prompt_tokens: 1234, completion_tokens: 8 },
      };
      res.writeHead(200, { ...cors, "content-type": "application/json" }).end(JSON.stringify(reply));
    });
  });
  return new Promise((resolve) => srv.listen(0, "127.0.0.1", () => resolve(srv)));
}

const ready = () => page.waitForSelector("body[data-state=ready]", { timeout: 120_000 });

/** Types a message, sends it with Enter, waits until the assistant's turn is stored and drawn. */
async function say(text) {
  const before = await page.locator("#messages .bubble").count();
  await page.fill("#input", text);
  await page.press("#input", "Enter");
  await page.waitForFunction(
    (n) => document.body.dataset.state === "ready" && document.querySelectorAll("#messages .bubble").length >= n + 2,
    before,
    { timeout: 60_000 },
  );
}

const lastAssistant = () => page.locator("#messages .bubble.assistant").last().innerText();
const texts = (selector) => page.locator(selector).allInnerTexts();

/** Everything the page could have persisted the key in, as one string. */
const storedEverywhere = () =>
  page.evaluate(async () => {
    const dump = [location.href, document.cookie, JSON.stringify({ ...localStorage }), JSON.stringify({ ...sessionStorage })];
    for (const { name } of await indexedDB.databases()) {
      const db = await new Promise((ok, fail) =>
        Object.assign(indexedDB.open(name), { onsuccess: (e) => ok(e.target.result), onerror: fail }),
      );
      for (const store of db.objectStoreNames) {
        const all = await new Promise((ok) => (db.transaction(store).objectStore(store).getAll().onsuccess = (e) => ok(e.target.result)));
        for (const v of all) dump.push(v instanceof Uint8Array ? new TextDecoder().decode(v) : JSON.stringify(v));
      }
      db.close();
    }
    return dump.join("\n");
  });

before(async () => {
  server = await start(0);
  fake = await fakeEndpoint();
  base = `http://127.0.0.1:${server.address().port}`;
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: "en-US" });
  page = await context.newPage();
  watchErrors(page, errors);
  await page.goto(`${base}/www/?maxTokens=300`);
  await ready();
});

after(async () => {
  await browser?.close();
  server?.close();
  fake?.close();
});

test("the server serves the page, the package and its assets with the right types", async () => {
  for (const [path, type] of [
    ["/www/", "text/html"],
    ["/www/app.js", "text/javascript"],
    ["/dist/browser.js", "text/javascript"],
    ["/dist/wasm/agent_memory_bg.wasm", "application/wasm"],
    ["/dist/ranks/o200k_base.bin", "application/octet-stream"],
  ]) {
    const res = await fetch(base + path);
    assert.equal(res.status, 200, path);
    assert.ok(res.headers.get("content-type").startsWith(type), `${path}: ${res.headers.get("content-type")}`);
  }
  // fetch() would resolve "..", so send the raw path: "%2f" survives URL parsing and decodes to "/".
  const status = await new Promise((ok, fail) =>
    get(`${base}/..%2f..%2f..%2fetc%2fpasswd`, (res) => ok(res.resume().statusCode)).on("error", fail),
  );
  assert.equal(status, 403, "no escaping the repo root");
  assert.equal((await fetch(`${base}/nope.js`)).status, 404);
});

test("English UI by default for an en-US browser, Chinese on the toggle", async () => {
  assert.equal(await page.locator("#forget").innerText(), "Forget everything");
  await page.click("#lang");
  assert.equal(await page.locator("#forget").innerText(), "全部遗忘");
  assert.match(await page.locator("#budget h2").innerText(), /上下文预算/);
  await page.click("#lang");
  assert.equal(await page.locator("#forget").innerText(), "Forget everything");
});

test("a bilingual conversation fills working memory and the inspector shows compaction", async () => {
  const script = [
    "你好，我叫小明，住在成都。",
    "记住：我对花生过敏",
    "I prefer short answers",
    "What's a good weekend plan in Chengdu?",
    "我想周末去爬青城山，需要准备什么？",
    "成都今天天气怎么样？",
    "Tell me something about Rust and WebAssembly.",
    "我最近在学做川菜，麻婆豆腐很好吃。",
    "Can you recommend a book about how memory works?",
    "周末的火锅店要提前预约吗？",
  ];
  for (const text of script) await say(text);
  // The weather question went through a tool-call group: call, result, reply.
  assert.ok((await texts("#messages .bubble.tool")).some((s) => s.includes("get_weather")));

  const episodes = page.locator("#episodic .episode");
  assert.ok((await episodes.count()) >= 1, "an episode appeared");
  assert.match(await episodes.first().innerText(), /importance\s*0\.\d\d/);
  assert.match(await episodes.first().innerText(), /extractive summary|model summary/);
  assert.ok((await page.locator("#compactions li.live").count()) >= 1, "compaction events are logged as they happen");
  assert.match((await texts("#compactions li.live"))[0], /messages → e\S+ · working \d+ → \d+ tokens/);

  for (const section of ["system", "procedures", "tools", "preferences", "summary", "recent", "overhead", "free", "reserve"]) {
    assert.equal(await page.locator(`#budget .bar [data-section=${section}]`).count(), 1, `bar has ${section}`);
  }
  assert.match(await page.locator("#budget .legend [data-section=recent]").innerText(), /recent\s*\d+/);
  assert.match(await page.locator("#budget-total").innerText(), /[\d,]+ of [\d,]+ tokens used · 300 reserved/);
  assert.match(await page.locator("#budget-cache").innerText(), /Stable prefix: [\d,]+ tokens \(\d+%\) before the recall block/);
  assert.match(await page.locator("#stat-cached").innerText(), /\d+%/);

  // The page stores "I prefer …" itself; compaction may learn the user's
  // archived "记住：我对花生过敏" (a constraint) as a preference too.
  const prefs = await texts("#semantic .fact[data-kind=preference] .text");
  assert.ok(prefs.includes("I prefer short answers"), JSON.stringify(prefs));
  assert.ok(
    prefs.every((p) => ["I prefer short answers", "记住：我对花生过敏"].includes(p)),
    JSON.stringify(prefs),
  );
  assert.deepEqual(await texts("#semantic .fact[data-kind=fact] .text"), ["我对花生过敏"]);
  assert.deepEqual(await texts("#procedural li"), [
    "Answer briefly.",
    "Reply in the language the user writes in.",
    "get_weather(city) — Current weather for a city",
  ]);
  assert.notEqual(await page.locator("#stat-cost b").innerText(), "$0", "offline turns are priced as simulated calls");
  assert.ok(Number(await page.locator("#stat-archived b").innerText()) > 0);
});

test("the offline assistant answers from memory after the teaching turn was archived", async () => {
  const teaching = page.locator("#messages .bubble.user", { hasText: "记住：我对花生过敏" });
  assert.match(await teaching.getAttribute("class"), /\barchived\b/, "the turn left working memory");
  await say("我对什么过敏？");
  assert.match(await lastAssistant(), /我记得：.*花生/);
  assert.match(
    await page.locator("#semantic .fact[data-kind=fact]").getAttribute("class"),
    /\bin\b/,
    "the fact was in the knowledge block",
  );
  // The screenshot: live compaction events, all four layers and the recall answer on screen.
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: `${artifacts}demo.png` });
});

test("the offline assistant answers a preference question from the pinned preferences, across languages", async () => {
  await say("记住：我偏好用 Python 写代码。");
  await say("What did I say about my language preference?");
  const answer = await lastAssistant();
  assert.match(answer, /^You told me: .*Python/, answer);
  // Not the unrelated preference when one matches: "short answers" shares no cue with this question.
  await say("我写代码偏好用什么？");
  assert.match(await lastAssistant(), /^你告诉过我：我偏好用 Python 写代码。$/);
});

test("an OpenAI-compatible endpoint gets the built context and tools; its key is stored nowhere", async () => {
  const costBefore = await page.locator("#stat-cost b").innerText();
  await page.click("#endpoint summary");
  await page.fill("#base-url", `http://127.0.0.1:${fake.address().port}/v1/`);
  await page.fill("#model", "gpt-4o-mini");
  await page.fill("#api-key", KEY);
  await page.click("#use-endpoint");
  assert.equal(await page.inputValue("#api-key"), "", "the key left the input");
  await say("Do I like short answers?");
  assert.equal(await lastAssistant(), "(fake model) Short answer: yes.");
  const [r] = requests;
  assert.equal(requests.length, 1);
  assert.equal(r.url, "/v1/chat/completions");
  assert.equal(r.authorization, `Bearer ${KEY}`);
  assert.equal(r.body.model, "gpt-4o-mini");
  assert.equal(r.body.tools[0].function.name, "get_weather");
  assert.equal(r.body.messages.at(-1).content, "Do I like short answers?");
  assert.ok(
    r.body.messages.some((m) => m.role === "system" && m.content.includes("I prefer short answers")),
    "preferences are in the prompt",
  );
  assert.ok(
    r.body.messages.some((m) => m.role === "system" && m.content.startsWith("[Conversation memory]")),
    "so are the summaries",
  );
  assert.notEqual(await page.locator("#stat-cost b").innerText(), costBefore, "usage was recorded");
  assert.ok(!(await storedEverywhere()).includes(KEY), "the key is in no storage and not in the URL");
  await page.click("#endpoint summary");
  await page.click("#use-offline");
});

test("a reload restores the conversation and every memory layer from IndexedDB", async () => {
  const snapshot = async () => ({
    chat: await texts("#messages .bubble"),
    episodes: await texts("#episodic .episode .ep-head"),
    facts: await texts("#semantic .fact"),
    total: await page.locator("#stat-total b").innerText(),
    cost: await page.locator("#stat-cost b").innerText(),
  });
  const before = await snapshot();
  await page.reload();
  await ready();
  const after = await snapshot();
  assert.deepEqual(after, before);
  assert.ok(before.chat.some((s) => /我记得：.*花生/.test(s)));
  assert.ok((await page.locator("#compactions li.restored").count()) >= 1, "past compactions are listed from the stored episodes");
  assert.match(await page.locator("#mode").innerText(), /Offline/, "the endpoint and its key did not survive the reload");
  await say("我对什么过敏？");
  assert.match(await lastAssistant(), /花生/, "recall still works after the reload");
});

test("“Forget everything” empties every layer, also after a reload", async () => {
  page.once("dialog", (d) => d.accept());
  await page.click("#forget");
  await page.waitForFunction(() => document.body.dataset.state === "ready" && !document.querySelector("#semantic .fact"));
  const check = async () => {
    assert.equal(await page.locator("#messages .bubble:not(.pinned-note)").count(), 0);
    assert.equal(await page.locator("#episodic .episode").count(), 0);
    assert.equal(await page.locator("#semantic .fact").count(), 0);
    assert.equal(await page.locator("#messages .bubble.pinned-note").count(), 1, "the system prompt is seeded again");
  };
  await check();
  await page.reload();
  await ready();
  await check();
});

test("no console errors and no page errors", () => {
  assert.deepEqual(errors, []);
});
