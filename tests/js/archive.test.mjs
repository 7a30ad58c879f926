// Cold segments through the package: folding writes archived messages
// into segments of their own (keys [namespace, "arc", …]), opening does not
// read them (the shelf records in the other segments say what they hold),
// and whichever call first needs archived messages reads them.
// Each test opens the namespace afresh and makes one call first, so every
// call that reads the cold segments is shown to see all of it on its own.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { MemoryController, memoryStorage } from "../../dist/node.js";

const OPTIONS = { namespace: "archive", model: "gpt-4o", segmentBytes: 32 * 1024, workingMemory: { maxTokens: 600 } };
const KEY = "The spare key is under the blue flowerpot by the back door, 备用钥匙在后门蓝色花盆下。";
let stored; // the values as the writer left them
let reference; // what the writer saw
let keyId; // the message stating KEY, archived long ago

before(async () => {
  const storage = memoryStorage();
  const memory = await MemoryController.create({ ...OPTIONS, storage });
  for (let i = 0; i < 600; i++) {
    const content = i === 40 ? KEY : `turn ${i}: 我们讨论了第${i % 97}个方案 and the budget for quarter ${i % 13}`;
    const { id } = await memory.add({ role: i % 2 ? "assistant" : "user", content });
    if (i === 40) keyId = id;
  }
  const stats = memory.stats();
  reference = { history: await memory.history(), messages: stats.messages, tokens: stats.tokens, export: await memory.export() };
  await memory.close();
  stored = await storage.loadRange([]);
});

/** A fresh controller over a copy of what the writer stored; `reads` lists the prefixes loaded. */
async function open() {
  const inner = memoryStorage();
  for (const { key, data } of stored) await inner.save(key, data);
  const reads = [];
  const storage = { ...inner, loadRange: (prefix) => (reads.push(prefix.join("/")), inner.loadRange(prefix)) };
  return { memory: await MemoryController.create({ ...OPTIONS, storage }), storage, reads };
}

const text = (values) => Buffer.concat(values.map((v) => Buffer.from(v.data))).toString("utf8");

test("folds write cold segments beside segments, and the old message is in one", () => {
  const archive = stored.filter((v) => v.key[1] === "arc");
  assert.ok(archive.length > 0 && stored.some((v) => v.key[1] === "seg"), `keys ${stored.map((v) => v.key[1])}`);
  assert.ok(text(archive).includes("flowerpot"), "the old message is in a cold segment");
});

test("opening reads no cold segment; the first call that needs one reads them all", async () => {
  const { memory, reads } = await open();
  // The hot prefixes, then the cold segments of the newest episodes, one key each.
  assert.deepEqual(reads.slice(0, 3), ["archive/log", "archive/seg", "archive/pack"]);
  const opened = reads.length;
  assert.ok(opened > 3 && reads.slice(3).every((r) => /^archive\/arc\/[^/]+\/\d{16}$/.test(r)), reads.join(" "));
  const episodes = memory.stats().episodes;
  await memory.buildContext({ maxTokens: 4000 });
  memory.stats();
  assert.equal(reads.length, opened, "a context without a query and stats read nothing more");
  // threads() reads the hot prefixes, and counts the archive from the shelf records.
  const [listed] = await memory.threads();
  assert.deepEqual(reads.slice(opened), ["archive/log", "archive/seg", "archive/pack"]);
  assert.equal(listed.messages, 600);
  assert.equal(listed.title, "turn 0: 我们讨论了第0个方案 and the budget for quarter 0");
  reads.length = opened;
  await memory.history();
  await memory.search("budget");
  assert.deepEqual(reads.slice(opened), ["archive/arc"], "read once");
  assert.equal((await memory.episodes()).length, episodes);
  assert.equal(memory.stats().episodes, episodes);
  await memory.close();
});

test("stats first: every message, its tokens counted as the writer counted them", async () => {
  const { memory } = await open();
  const stats = memory.stats();
  assert.deepEqual(stats.messages, reference.messages);
  assert.deepEqual(stats.tokens, reference.tokens);
  await memory.close();
});

test("history first: every message, in order", async () => {
  const { memory } = await open();
  assert.deepEqual(await memory.history(), reference.history);
  await memory.close();
});

test("loadReport: the archive's records are counted once it is read", async () => {
  const { memory } = await open();
  const before = memory.loadReport();
  await memory.history();
  const after = memory.loadReport();
  assert.ok(after.records > before.records + 250 && after.records > 600, `${before.records}, then ${after.records} records`);
  assert.ok(after.keys > before.keys);
  assert.deepEqual(after.corrupt, []);
  assert.equal(after.duplicates, 0);
  await memory.close();
});

test("a damaged cold segment is reported when read, and everything intact loads", async () => {
  const { memory, storage } = await open();
  // A cold segment of messages (opening reads some of episodes), not the one with KEY.
  const victim = stored.find(
    (v) =>
      v.key[1] === "arc" &&
      Buffer.from(v.data).toString("utf8").includes('{"msg":') &&
      !Buffer.from(v.data).toString("utf8").includes("flowerpot"),
  );
  const data = Uint8Array.from(victim.data);
  data[data.length - 3] ^= 0x55;
  await storage.save(victim.key, data);
  assert.deepEqual(memory.loadReport().corrupt, []);
  const hits = await memory.search("where is the spare key? 备用钥匙", { k: 3 });
  assert.equal(hits[0]?.id, keyId);
  assert.deepEqual(
    memory.loadReport().corrupt.map((c) => [c.key.join("/"), c.code]),
    [[victim.key.join("/"), "CORRUPT_DATA"]],
  );
  await memory.close();
});

test("search first: an archived message is found", async () => {
  const { memory } = await open();
  const hits = await memory.search("where is the spare key? 备用钥匙", { k: 3 });
  assert.equal(hits[0]?.id, keyId);
  await memory.close();
});

test("buildContext with a query first: the archived message reaches the context", async () => {
  const { memory } = await open();
  const ctx = await memory.buildContext({ maxTokens: 4000, query: "where is the spare key? 备用钥匙" });
  assert.ok(JSON.stringify(ctx.messages).includes("flowerpot"));
  await memory.close();
});

test("the recall tool first: the archived message is recalled", async () => {
  const { memory } = await open();
  assert.ok((await memory.callTool("recall", { query: "spare key flowerpot" })).includes("flowerpot"));
  await memory.close();
});

test("export first: the same snapshot the writer exported", async () => {
  const { memory } = await open();
  const lines = (s) => s.trim().split("\n").sort();
  assert.deepEqual(lines(await memory.export()), lines(reference.export));
  await memory.close();
});

test("forget first: an archived message goes from every stored byte", async () => {
  const { memory, storage } = await open();
  const out = await memory.forget(keyId);
  assert.equal(out.messages, 1);
  await memory.flush();
  assert.ok(!text(await storage.loadRange([])).includes("flowerpot"), "the forgotten text is still stored");
  assert.equal((await memory.history()).length, 599);
  await memory.close();
  const again = await MemoryController.create({ ...OPTIONS, storage });
  // Counted from the shelf records before the cold segments are read, then read.
  assert.equal(again.stats().messages.total, 599);
  assert.equal((await again.history()).length, 599);
  assert.equal(again.stats().messages.total, 599);
  await again.close();
});

test("truncateAfter first, at an archived message: everything after it goes", async () => {
  const { memory, storage } = await open();
  await memory.truncateAfter(keyId);
  const kept = reference.history.slice(0, 41).map((h) => h.id);
  assert.deepEqual(
    (await memory.history()).map((h) => h.id),
    kept,
  );
  await memory.close();
  const again = await MemoryController.create({ ...OPTIONS, storage });
  assert.deepEqual(
    (await again.history()).map((h) => h.id),
    kept,
  );
  await again.close();
});
