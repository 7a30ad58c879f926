// importConversations on exports written from the services' documented
// formats (tests/fixtures/import): one thread per conversation with its
// title and original times; only the branch the user last saw; hidden
// nodes left out; tool calls, attachments, code, images and Chinese kept;
// a second import stores nothing twice; a malformed conversation stops the
// import with a MemoryError naming it and its field, the ones before it
// stored; any input shape (text, bytes, streams, iterables) reads the same.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createReadStream, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { MemoryController, memoryStorage, nodeFileStorage } from "../../dist/node.js";

const fixture = (name) => new URL(`../fixtures/import/${name}.json`, import.meta.url);
const text = (name) => readFileSync(fixture(name), "utf8");
const options = (storage, extra = {}) => ({ namespace: "alice", model: "gpt-4o", storage, ...extra });

/** Every imported thread of the namespace: { thread: { title, firstAt, lastAt, items: history } }. */
async function stored(storage, extra) {
  const memory = await MemoryController.create(options(storage, extra));
  const out = {};
  for (const t of await memory.threads()) {
    const m = await MemoryController.create(options(storage, { ...extra, thread: t.thread }));
    out[t.thread] = { title: t.title, firstAt: t.firstAt, lastAt: t.lastAt, items: await m.history(), episodes: await m.episodes() };
    await m.close();
  }
  await memory.close();
  return out;
}

const ids = (thread) => thread.items.map((h) => h.message.imported.id);
const contents = (thread) => thread.items.map((h) => h.message.content);

async function importInto(storage, data, opts, extra) {
  const memory = await MemoryController.create(options(storage, extra));
  try {
    return await memory.importConversations(data, opts);
  } finally {
    await memory.close();
  }
}

test("ChatGPT: the current_node branch, hidden nodes left out, tool calls answered, at the original times", async () => {
  const storage = memoryStorage();
  const seen = [];
  const result = await importInto(storage, text("chatgpt"), { format: "chatgpt", onProgress: (p) => seen.push(p) });
  assert.deepEqual(result, { conversations: 3, messages: 14, skipped: 0, hidden: 3, format: "chatgpt" });
  assert.deepEqual(
    seen.map((p) => [p.conversations, p.conversation.title]),
    [
      [1, "成都旅行计划"],
      [2, "Parse a CSV in Python"],
      [3, "Weather lookup"],
    ],
  );
  const threads = await stored(storage);
  const trip = threads["chatgpt-6655a1b2-0000-4000-8000-00000000c001"];
  assert.equal(trip.title, "成都旅行计划");
  // a1a and a2a were regenerated away; sys, ctx (custom instructions) and th (reasoning) are hidden.
  assert.deepEqual(ids(trip), ["u1", "a1b", "u2", "a2b"]);
  assert.deepEqual(
    trip.items.map((h) => h.ts),
    [1717200001250, 1717200020000, 1717200100000, 1717200110000],
  );
  assert.match(trip.items[0].message.content, /^\[image 1024×768: file-service:\/\/file-Abc123\]\n这张地图上的宽窄巷子/);
  assert.match(trip.items[0].message.content, /\[attachment: chengdu-map\.png, image\/png\]$/);
  assert.ok(!JSON.stringify(trip.items).includes("I live in Shanghai"), "custom instructions are hidden context, not a message");

  const csv = threads["chatgpt-6655a1b2-0000-4000-8000-00000000c002"];
  assert.deepEqual(ids(csv), ["n1", "n2", "n3", "n4", "n6", "n7"], "the edited question n5 is another branch");
  const [call, result2] = [csv.items[1].message, csv.items[2].message];
  assert.equal(call.tool_calls[0].function.name, "python");
  assert.match(JSON.parse(call.tool_calls[0].function.arguments).code, /pd\.read_csv/);
  assert.deepEqual([result2.role, result2.tool_call_id, result2.content], ["tool", call.tool_calls[0].id, "4213.5"]);
  assert.match(csv.items[5].message.content, /```python\ndef column_sum/);

  // Without current_node (older exports), the leaf written last.
  const [, csvRaw] = JSON.parse(text("chatgpt"));
  const other = memoryStorage();
  await importInto(other, [{ ...csvRaw, current_node: undefined }]);
  assert.deepEqual(ids(Object.values(await stored(other))[0]), ids(csv));

  const weather = threads["chatgpt-6655a1b2-0000-4000-8000-00000000c003"];
  assert.deepEqual(ids(weather), ["w1", "w2", "w3", "w5"], "two browsing outputs answer one call");
  assert.match(weather.items[2].message.content, /Rain likely[\s\S]*Tomorrow: showers/);
});

test("Claude: the branch ending at the newest message, attachments' text, tool use as text, thinking left out", async () => {
  const storage = memoryStorage();
  const result = await importInto(storage, text("claude"), { format: "claude" });
  assert.deepEqual(result, { conversations: 4, messages: 8, skipped: 0, hidden: 0, format: "claude" });
  const threads = await stored(storage);
  assert.equal(Object.keys(threads).length, 3, "the empty conversation makes no thread");
  const notes = threads["claude-a1f0c9e2-1111-4c3a-9d2e-00000000a001"];
  assert.equal(notes.title, "读书笔记：三体");
  assert.match(contents(notes)[0], /\[attachment: 三体笔记\.txt\]\n黑暗森林法则/);
  assert.ok(!contents(notes)[1].includes("The user wants a summary"), "thinking is not kept");
  const flights = threads["claude-a1f0c9e2-1111-4c3a-9d2e-00000000a002"];
  assert.deepEqual(contents(flights).slice(2), ["What about Sunday instead?", "On Sunday, Air China CA931 flies direct at 13:30."]);
  assert.match(contents(flights)[1], /\[tool_use web_search\] \{"query":"PVG to BER flights Friday"\}\n\[tool_result web_search\] LH729/);
  assert.match(contents(flights)[0], /\[file: passport-scan\.pdf\]/);
  assert.equal(flights.firstAt, Date.parse("2025-04-02T10:00:01Z"));
  const regex = threads["claude-a1f0c9e2-1111-4c3a-9d2e-00000000a004"];
  assert.equal(regex.items.length, 2, "an export without parent ids is read in order");
});

test("OpenAI messages: tool calls and content parts as given, times in seconds or ISO text", async () => {
  const storage = memoryStorage();
  const result = await importInto(storage, JSON.parse(text("openai")));
  assert.equal(result.format, "openai", "detected");
  const threads = await stored(storage);
  const support = threads["openai-support-42"];
  assert.equal(support.title, "Order status");
  assert.deepEqual(
    support.items.map((h) => h.message.role),
    ["system", "user", "assistant", "tool", "assistant"],
  );
  assert.equal(support.items[2].message.tool_calls[0].id, "call_1");
  assert.equal(support.firstAt, 1735689600000);
  const [other] = Object.keys(threads).filter((t) => t !== "openai-support-42");
  assert.deepEqual(threads[other].items[0].message.content, [{ type: "text", text: "把这句话翻译成英文：我明天去北京出差。" }]);
  assert.equal(threads[other].items[1].ts, Date.parse("2025-01-05T09:00:03Z"));
  // The import mark never goes to a model.
  const memory = await MemoryController.create(options(storage, { thread: "openai-support-42" }));
  const ctx = await memory.buildContext({ maxTokens: 2000 });
  assert.ok(ctx.messages.length > 0 && ctx.messages.every((m) => !("imported" in m)));
  await memory.close();
});

for (const [name, make] of [
  ["memoryStorage", async () => [memoryStorage(), async () => {}]],
  [
    "nodeFileStorage",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "am-import-"));
      return [nodeFileStorage(dir), () => rm(dir, { recursive: true, force: true })];
    },
  ],
]) {
  test(`${name}: importing the same exports again stores nothing twice`, async () => {
    const [storage, cleanup] = await make();
    try {
      const first = [];
      for (const f of ["chatgpt", "claude", "openai"]) first.push(await importInto(storage, text(f)));
      const before = await stored(storage);
      // Again, through other input shapes: bytes in small chunks, a web stream.
      const again = [
        await importInto(storage, createReadStream(fixture("chatgpt"), { highWaterMark: 64 })),
        await importInto(storage, Readable.toWeb(createReadStream(fixture("claude"), { highWaterMark: 97 }))),
        await importInto(storage, new TextEncoder().encode(text("openai"))),
      ];
      assert.deepEqual(
        again.map((r) => r.messages),
        [0, 0, 0],
      );
      assert.deepEqual(
        again.map((r) => r.skipped),
        first.map((r) => r.messages),
      );
      assert.deepEqual(await stored(storage), before);
    } finally {
      await cleanup();
    }
  });
}

test("a longer conversation is compacted as it goes; its episodes carry the original times", async () => {
  const storage = memoryStorage();
  const start = Date.parse("2023-05-01T10:00:00Z");
  const messages = Array.from({ length: 60 }, (_, i) => ({
    id: `m${i}`,
    role: i % 2 ? "assistant" : "user",
    content:
      i % 2
        ? `第 ${i} 条回复：关于成都的行程、酒店和火锅的建议，内容比较长一些以便触发压缩。`
        : `question ${i}: what should I pack for a week in Chengdu in May?`,
    timestamp: start + i * 60_000,
  }));
  await importInto(storage, [{ id: "long", title: "Packing", messages }], {}, { workingMemory: { maxTokens: 300 } });
  const { long } = { long: (await stored(storage, { workingMemory: { maxTokens: 300 } }))["openai-long"] };
  assert.equal(long.items.length, 60);
  assert.ok(long.episodes.length > 0, "compacted");
  const archived = long.items.filter((h) => h.place === "archived").map((h) => h.id);
  assert.deepEqual(long.episodes.flatMap((e) => e.messageIds).sort(), archived.sort(), "every archived message in one episode");
  for (const e of long.episodes) assert.ok(e.createdAt >= start && e.createdAt <= start + 60 * 60_000, `episode ${e.id} at ${e.createdAt}`);
  // The imported thread keeps at most workingTokens in working memory (here 300 / 4, raised to 200).
  const reopened = await MemoryController.create(options(storage, { thread: "openai-long", workingMemory: { maxTokens: 4000 } }));
  const working = reopened.stats().tokens.working;
  assert.ok(working > 0 && working <= 200, `${working} tokens in working memory`);
  await reopened.close();
  const wide = memoryStorage();
  await importInto(wide, [{ id: "long", messages }], { workingTokens: 3000 }, { workingMemory: { maxTokens: 300 } });
  const roomy = await MemoryController.create(options(wide, { thread: "openai-long", workingMemory: { maxTokens: 4000 } }));
  assert.ok(roomy.stats().tokens.working > 200, "workingTokens sets it");
  await roomy.close();
  await assert.rejects(importInto(wide, [], { workingTokens: 0 }), (e) => e.code === "INVALID_INPUT" && /workingTokens/.test(e.message));
});

test("a malformed conversation: a MemoryError naming it and the field; the ones before stay, the call says how far it got", async () => {
  const storage = memoryStorage();
  const memory = await MemoryController.create(options(storage));
  await assert.rejects(memory.importConversations(text("malformed-chatgpt"), { format: "chatgpt" }), (e) => {
    assert.equal(e.name, "MemoryError");
    assert.equal(e.code, "INVALID_INPUT");
    assert.match(e.message, /conversation 1 \("Broken time", id bad-2\): mapping\.x\.message\.create_time/);
    assert.equal(e.field, "mapping.x.message.create_time");
    assert.deepEqual(e.progress, { conversations: 1, messages: 2, skipped: 0, hidden: 0, failedAt: 1 });
    return true;
  });
  assert.deepEqual(
    (await memory.threads()).map((t) => t.thread),
    ["chatgpt-ok-1"],
  );
  await assert.rejects(memory.importConversations(text("truncated-claude")), (e) => {
    assert.equal(e.code, "INVALID_INPUT");
    assert.match(e.message, /ends before the array does/);
    assert.equal(e.progress.conversations, 1);
    return true;
  });
  assert.deepEqual((await memory.threads()).map((t) => t.thread).sort(), ["chatgpt-ok-1", "claude-c-1"]);
  for (const [data, field] of [
    [[{ id: "x", messages: [{ role: "user", content: "no time" }] }], "messages[0].timestamp"],
    [[{ mapping: {}, conversation_id: "c", current_node: "nope" }], "current_node"],
    [
      [{ uuid: "u", chat_messages: [{ uuid: "m", sender: "robot", text: "hi", created_at: "2025-01-01T00:00:00Z" }] }],
      "chat_messages[0].sender",
    ],
    [[{ conversation_id: "c", current_node: "a", mapping: { a: { parent: "b" }, b: { parent: "a" } } }], "mapping.b.parent"],
    [[42], "(conversation)"],
  ]) {
    await assert.rejects(
      memory.importConversations(data),
      (e) => e.code === "INVALID_INPUT" && e.field === field && e.progress.conversations === 0,
      field,
    );
  }
  await memory.close();
});

test("importConversations needs a storage adapter, and checks its options", async () => {
  const alone = await MemoryController.create({ namespace: "alice", model: "gpt-4o" });
  await assert.rejects(alone.importConversations("[]"), (e) => e.code === "INVALID_INPUT" && /storage adapter/.test(e.message));
  const memory = await MemoryController.create(options(memoryStorage()));
  await assert.rejects(
    memory.importConversations("[]", { format: "gemini" }),
    (e) => e.code === "INVALID_INPUT" && /options\.format/.test(e.message),
  );
  await assert.rejects(memory.importConversations(12), (e) => e.code === "INVALID_INPUT" && /data/.test(e.message));
  assert.deepEqual(await memory.importConversations("[]"), { conversations: 0, messages: 0, skipped: 0, hidden: 0, format: undefined });
});

test("the input is read as it is imported: the first conversation is stored before the rest is read", async () => {
  const storage = memoryStorage();
  const [first, ...rest] = JSON.parse(text("claude"));
  let stored = 0;
  let storedWhenAskedForMore;
  async function* chunks() {
    const head = new TextEncoder().encode(`[${JSON.stringify(first)},`);
    // Bytes split inside a multi-byte character, as a stream may cut them.
    yield head.slice(0, 40);
    yield head.slice(40);
    storedWhenAskedForMore = stored;
    yield `${rest.map((c) => JSON.stringify(c)).join(",")}]`;
  }
  const result = await importInto(storage, chunks(), { onProgress: (p) => (stored = p.conversations) });
  assert.equal(storedWhenAskedForMore, 1);
  assert.equal(result.conversations, 4);
});

test("addMany: messages at their own times saved as one change; a tool result waits for add; a bad batch changes nothing", async () => {
  const storage = memoryStorage();
  const memory = await MemoryController.create(options(storage, { thread: "batch", workingMemory: { maxTokens: 200 } }));
  const items = Array.from({ length: 30 }, (_, i) => ({
    message: { role: i % 2 ? "assistant" : "user", content: `batch message ${i}: 周末去爬山还是去看展览？` },
    at: 1_000_000 + i * 1000,
  }));
  const call = { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] };
  await assert.rejects(
    memory.addMany([
      { message: call, at: 5 },
      { message: { role: "tool", tool_call_id: "c1", content: "x" }, at: 6 },
    ]),
    (e) => e.code === "INVALID_INPUT",
  );
  await assert.rejects(
    memory.addMany([{ message: { role: "user", content: "no time" } }]),
    (e) => e.code === "INVALID_INPUT" && /items\[0\]\.at/.test(e.message),
  );
  assert.deepEqual(await memory.history(), [], "nothing changed");
  const added = await memory.addMany(items);
  assert.equal(added.ids.length, 30);
  assert.ok(added.compaction, "past the threshold: compacted");
  await memory.addMany([{ message: call, at: 2_000_000 }]);
  await memory.add({ role: "tool", tool_call_id: "c1", content: "ok" });
  await memory.close();
  const reopened = await MemoryController.create(options(storage, { thread: "batch", workingMemory: { maxTokens: 200 } }));
  const history = await reopened.history();
  assert.deepEqual(
    history.slice(0, 30).map((h) => [h.id, h.ts, h.message.content]),
    items.map((it, i) => [added.ids[i], it.at, it.message.content]),
  );
  assert.deepEqual(
    history.slice(30).map((h) => h.message.role),
    ["assistant", "tool"],
  );
  await reopened.close();
});

test("with a summarizer: one request at a time while importing, every archived message in one episode, fallbacks say why", async () => {
  const storage = memoryStorage();
  let inFlight = 0,
    most = 0,
    calls = 0;
  const summarizer = async (request) => {
    calls++;
    most = Math.max(most, ++inFlight);
    // Slower than the import: a few turns of the event loop per answer.
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    inFlight--;
    return JSON.stringify({ summary: `about ${request.messages.length} messages`, importance: 0.5 });
  };
  const extra = { workingMemory: { maxTokens: 400 }, summaryBacklog: 2, summarizer };
  const messages = Array.from({ length: 400 }, (_, i) => ({
    role: i % 2 ? "assistant" : "user",
    content: `turn ${i}: ${"旅行计划 itinerary ".repeat(1 + (i % 9))}`,
    timestamp: 1_600_000_000 + i,
  }));
  const result = await importInto(storage, [{ id: "long", title: "Long", messages }], {}, extra);
  assert.equal(result.messages, 400);
  const thread = (await stored(storage, extra))["openai-long"];
  const archived = thread.items.filter((h) => h.place === "archived").map((h) => h.id);
  assert.ok(archived.length > 300, `${archived.length} archived`);
  assert.deepEqual(
    thread.episodes.flatMap((e) => e.messageIds),
    archived,
    "every archived message in exactly one episode, in order",
  );
  assert.equal(most, 1, "one summary request at a time");
  assert.ok(calls > 0 && thread.episodes.some((e) => e.summarySource === "model"));
  for (const e of thread.episodes) if (e.summarySource === "fallback") assert.match(e.degraded?.code ?? "", /^SUMMARIZER_/);
});
