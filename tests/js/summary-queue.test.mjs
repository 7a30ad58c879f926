// Bounded summaries through the built package: a burst of adds while the
// summarizer is slow queues one range per compaction, never merged, splits
// what passes summaryInputTokens, bounds the backlog, and covers every
// archived message with exactly one episode. The summarizer here answers
// when the test says so, never after a wall-clock wait. Also: a hook that
// never answers is reported with its own timeout code.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { MemoryController, openAICompatibleSummarizer, openAICompatibleEmbedder } from "../../dist/node.js";
import { startFakeOpenAI, hang } from "./hooks/fake-openai.mjs";

let server;
before(async () => (server = await startFakeOpenAI()));
after(() => server.close());

/** A summarizer hook whose calls wait in `calls` until the test settles them. */
function controlled() {
  const calls = [];
  let wake = () => {};
  const hook = (request) =>
    new Promise((resolve, reject) => {
      calls.push({ request, resolve, reject });
      wake();
    });
  const arrival = () => new Promise((r) => (wake = r));
  return { hook, calls, arrival };
}

/** Settles call `i` as a model would, or fails it when `fail(i)`. */
function settle(call, i, fail) {
  if (fail(i)) call.reject(Object.assign(new Error("HTTP 503 from the summary model"), { name: "MemoryError", code: "SUMMARIZER_HTTP" }));
  else call.resolve(JSON.stringify({ summary: `summary #${i}`, importance: 0.5 }));
}

const text = (i) => {
  // From a few words to a paragraph; messages 0 and 250 alone are far larger than one request may be.
  const words = i === 0 || i === 250 ? 500 : 3 + ((i * 7) % 30);
  return `Message ${i}: ` + Array.from({ length: words }, (_, w) => `w${i}x${w}`).join(" ");
};

async function burst(fail) {
  const INPUT = 200;
  const s = controlled();
  const memory = await MemoryController.create({
    model: "gpt-4o",
    workingMemory: { maxTokens: 400 },
    summaryTokens: 60,
    summaryInputTokens: INPUT,
    summaryBacklog: 4,
    summarizer: s.hook,
  });
  let answered = 0;
  const ids = [];
  for (let i = 0; i < 600; i++) {
    ids.push((await memory.add({ role: i % 2 ? "assistant" : "user", content: text(i) })).id);
    // The summarizer is slower than the adds: it answers one request per 20 of them.
    if (i % 20 === 19 && answered < s.calls.length) settle(s.calls[answered], answered++, fail);
    assert.ok(s.calls.length - answered <= 1, "one request at a time");
  }
  let flushed = false;
  const done = memory.flush().then(() => (flushed = true));
  while (!flushed) {
    if (answered < s.calls.length) settle(s.calls[answered], answered++, fail);
    else await Promise.race([done, s.arrival()]);
  }

  const history = await memory.history();
  assert.deepEqual(
    history.map((h) => h.id),
    ids,
    "nothing lost: history has all 600, in order",
  );
  const episodes = await memory.episodes();
  const archived = history.filter((h) => h.place === "archived").map((h) => h.id);
  assert.ok(archived.length > 500, `most of the burst was archived (${archived.length})`);
  assert.deepEqual(
    episodes.flatMap((e) => e.messageIds),
    archived,
    "every archived message in exactly one episode, in order",
  );

  const byId = new Map(history.map((h) => [h.id, h]));
  const contents = (e) => e.messageIds.map((id) => byId.get(id).message.content);
  for (const [i, { request }] of s.calls.entries()) {
    const tokens = memory.countMessages(request.messages) + (request.previousSummary ? memory.countTokens(request.previousSummary) : 0);
    assert.ok(tokens <= INPUT, `request ${i} carries ${tokens} tokens`);
    const mine = episodes.filter((e) => e.summary === `summary #${i}`);
    if (fail(i)) {
      assert.equal(mine.length, 0);
      continue;
    }
    assert.equal(mine.length, 1, `one episode for request ${i}`);
    assert.deepEqual(
      contents(mine[0]),
      request.messages.map((m) => m.content),
      "the episode covers what its request carried",
    );
  }
  for (const e of episodes) {
    // One compacted range at most: never more than working memory held (or one message larger than that).
    const tokens = e.messageIds.reduce((n, id) => n + byId.get(id).tokens, 0);
    assert.ok(tokens <= 400 || e.messageIds.length === 1, `${e.id} spans more than one range`);
    if (e.summarySource === "model") assert.equal(e.degraded, undefined);
    else assert.ok(e.degraded?.code.startsWith("SUMMARIZER_"), `${e.id}: a fallback says why`);
  }
  const codes = new Set(episodes.map((e) => e.degraded?.code).filter(Boolean));
  assert.ok(codes.has("SUMMARIZER_BACKLOG"), "past the backlog the oldest ranges take the offline summary");
  assert.ok(codes.has("SUMMARIZER_INPUT_LIMIT"), "a message larger than a request is summarized offline");
  assert.equal(
    codes.has("SUMMARIZER_HTTP"),
    s.calls.some((_, i) => fail(i)),
  );
  assert.ok(episodes.length > s.calls.length && s.calls.length > 25, `${episodes.length} episodes, ${s.calls.length} requests`);
  assert.ok(episodes.filter((e) => e.summarySource === "model").length > 10);
}

test("600 messages into a 400-token window during slow summaries: one episode per range, no request over summaryInputTokens, nothing lost", async () => {
  await burst(() => false);
});

test("the same burst with a summarizer that fails every other call", async () => {
  await burst((i) => i % 2 === 1);
});

test("summaryInputTokens, summaryBacklog and the hook timeouts are validated", async () => {
  const bad = [
    { summaryInputTokens: 0 },
    { summaryInputTokens: -5 },
    { summaryInputTokens: 1.5 },
    { summaryInputTokens: "6000" },
    { summaryInputTokens: 200 }, // not above summaryTokens (200)
    { summaryTokens: 500, summaryInputTokens: 400 },
    { summaryBacklog: -1 },
    { summaryBacklog: 0 },
    { summarizerTimeoutMs: 0 },
    { summarizerTimeoutMs: -1 },
    { embedderTimeoutMs: 0 },
    { embedderTimeoutMs: "1000" },
  ];
  for (const options of bad) {
    await assert.rejects(
      MemoryController.create(options),
      (e) => e.name === "MemoryError" && e.code === "INVALID_INPUT",
      JSON.stringify(options),
    );
  }
  const ok = await MemoryController.create({ summaryInputTokens: 201, summaryBacklog: 1, summarizerTimeoutMs: 1, embedderTimeoutMs: 1 });
  assert.equal(ok.stats().messages.total, 0);
});

test("a summarizer hook that never answers: the episode records SUMMARIZER_TIMEOUT, nothing lost", async () => {
  const memory = await MemoryController.create({
    model: "gpt-4o",
    workingMemory: { maxTokens: 200 },
    summarizer: () => new Promise(() => {}),
    summarizerTimeoutMs: 20,
  });
  for (let i = 0; i < 12; i++)
    await memory.add({ role: i % 2 ? "assistant" : "user", content: `turn ${i}: the hotel near Chunxi Road and the budget for day ${i}` });
  await memory.flush();
  const episodes = await memory.episodes();
  assert.ok(episodes.length > 0);
  for (const e of episodes) {
    assert.equal(e.summarySource, "fallback");
    assert.equal(e.degraded?.code, "SUMMARIZER_TIMEOUT", JSON.stringify(e.degraded));
    assert.match(e.degraded.message, /20 ms/);
  }
  assert.equal((await memory.history()).length, 12);
});

test("the built-in summarizer on an endpoint that hangs: its SUMMARIZER_TIMEOUT reaches the episode", async () => {
  server.reset();
  server.script(...Array.from({ length: 20 }, () => hang()));
  const summarizer = openAICompatibleSummarizer({
    baseURL: server.baseURL,
    apiKey: "sk-test",
    model: "gpt-4o-mini",
    timeoutMs: 50,
    maxRetries: 0,
  });
  const memory = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 200 }, summarizer });
  for (let i = 0; i < 12; i++)
    await memory.add({ role: i % 2 ? "assistant" : "user", content: `turn ${i}: the hotel near Chunxi Road and the budget for day ${i}` });
  await memory.flush();
  const episodes = await memory.episodes();
  assert.ok(episodes.length > 0);
  for (const e of episodes) assert.equal(e.degraded?.code, "SUMMARIZER_TIMEOUT");
});

test("an embedder hook that never answers: search and buildContext degrade to lexical with EMBEDDER_TIMEOUT", async () => {
  const memory = await MemoryController.create({ model: "gpt-4o", embedder: () => new Promise(() => {}), embedderTimeoutMs: 20 });
  await memory.remember({ text: "The user's flight to Chengdu leaves on June 12." });
  const hits = await memory.search("flight Chengdu");
  assert.equal(hits.mode, "lexical");
  assert.equal(hits.degraded?.code, "EMBEDDER_TIMEOUT");
  assert.ok(
    hits.some((h) => h.text.includes("June 12")),
    "lexical search still finds it",
  );
  const ctx = await memory.buildContext({ query: "flight Chengdu", maxTokens: 1000 });
  assert.equal(ctx.sections.knowledge.degraded?.code, "EMBEDDER_TIMEOUT");
});

test("import opens as create does: the hooks' deadlines apply", async () => {
  const source = await MemoryController.create({ model: "gpt-4o" });
  await source.remember({ text: "The user's flight to Chengdu leaves on June 12." });
  const memory = await MemoryController.import(await source.export(), {
    model: "gpt-4o",
    embedder: () => new Promise(() => {}),
    embedderTimeoutMs: 20,
  });
  const hits = await memory.search("flight Chengdu");
  assert.equal(hits.degraded?.code, "EMBEDDER_TIMEOUT");
  await assert.rejects(MemoryController.import(await source.export(), { summarizerTimeoutMs: -1 }), (e) => e.code === "INVALID_INPUT");
});

test("the built-in embedder on an endpoint that hangs: search reports EMBEDDER_TIMEOUT", async () => {
  server.reset();
  server.script(...Array.from({ length: 10 }, () => hang()));
  const embedder = openAICompatibleEmbedder({
    baseURL: server.baseURL,
    apiKey: "sk-test",
    model: "text-embedding-3-small",
    timeoutMs: 50,
    maxRetries: 0,
  });
  const memory = await MemoryController.create({ model: "gpt-4o", embedder });
  await memory.remember({ text: "The user's flight to Chengdu leaves on June 12." });
  const hits = await memory.search("flight Chengdu");
  assert.equal(hits.degraded?.code, "EMBEDDER_TIMEOUT");
});
