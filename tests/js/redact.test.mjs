// Secrets never stored: credentials (and personal data when asked) are
// redacted before a message, tool result or fact is stored, summarized,
// embedded or counted. Checked on the raw bytes each adapter keeps
// (memoryStorage, nodeFileStorage's files, localStorageAdapter's items over
// a Web Storage object; cloudflareKVStorage and durableObjectStorage in
// workerd: redact-workerd.test.mjs; indexedDBStorage and localStorage in
// Chromium: redact-browser.test.mjs; the raw views: scrub/), on every
// summarizer and embedder request, and on what the controller reads back. The options (`false`,
// `{ personal }`, a host function) and what `add` reports.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryController, memoryStorage, redactText } from "../../dist/node.js";
import { ADAPTERS } from "./scrub/adapters.mjs";
import { scenario, credentialValues, personalValues, leaked, SECRETS, PERSONAL } from "./scrub/redact.mjs";
import { generateText } from "ai";
import { assertSound, setup } from "./ai-sdk-support.mjs";

for (const [name, make] of ADAPTERS) {
  test(`${name}: no redacted value reaches a stored byte, a hook request or a read`, async () => {
    const { storage, raw, done } = await make("redact");
    try {
      const out = await scenario(MemoryController, storage, { redact: { personal: true } });
      assert.ok(out.summarized > 0, "the conversation compacted, so the summarizer saw the turns");
      assert.ok(out.hookText.includes("[redacted:openai-key]"), "the hooks saw the redacted turn");
      const bytes = await raw();
      assert.ok(bytes.includes("[redacted:private-key]"), "the raw view holds the records");
      const values = [...credentialValues(), ...personalValues()];
      assert.deepEqual(leaked(bytes, values), [], "stored bytes");
      assert.deepEqual(leaked(out.hookText, values), [], "summarizer and embedder requests");
      assert.deepEqual(leaked(out.readable, values), [], "history, facts, episodes, context, export");
      // What each call reports: kinds and counts, never a value.
      const r = out.results;
      assert.deepEqual(r.user.redacted, { "openai-key": 1, email: 1, phone: 1 });
      assert.deepEqual(r.call.redacted, { "aws-access-key": 1, "aws-secret-key": 1 });
      assert.deepEqual(r.tool.redacted, { jwt: 1, "private-key": 1, "url-password": 1 });
      assert.deepEqual(r.fact.redacted, { "github-token": 1, "cn-id": 1, "card-number": 1 });
      assert.deepEqual(r.edit.redacted, { "slack-token": 1 });
      assert.match(r.toolAnswer, /^Remembered/);
      assert.deepEqual(leaked(JSON.stringify(r), values), []);
    } finally {
      await done();
    }
  });
}

test("by default credentials are redacted and personal data kept; redact: false keeps both", async () => {
  const storage = memoryStorage();
  const bytes = async () => (await storage.loadRange([])).map((e) => Buffer.from(e.data).toString("utf8")).join("\n");
  const out = await scenario(MemoryController, storage);
  assert.deepEqual(leaked(await bytes(), credentialValues()), []);
  assert.deepEqual(leaked(out.hookText + out.readable, credentialValues()), []);
  assert.deepEqual(out.results.user.redacted, { "openai-key": 1 });
  assert.ok(
    personalValues().every((v) => out.readable.includes(v)),
    "personal data is kept unless asked",
  );
  // `redact: false`: the same conversation stores the values (the checks above can fail).
  const plain = memoryStorage();
  const off = await scenario(MemoryController, plain, { redact: false });
  const stored = (await plain.loadRange([])).map((e) => Buffer.from(e.data).toString("utf8")).join("\n");
  assert.ok(stored.includes(SECRETS["openai-key"]) && stored.includes(SECRETS["aws-secret-key"]));
  assert.deepEqual(leaked(off.hookText, Object.values(SECRETS)).length, Object.keys(SECRETS).length, "the hooks saw every value");
  assert.equal(off.results.user.redacted, undefined, "nothing redacted, nothing reported");
});

test("a host function replaces the scanners: what it returns is stored, its placeholders reported", async () => {
  const seen = [];
  const redact = async (text) => {
    seen.push(text);
    return text.replace(/ACME-\d{6}/g, "[redacted:acme-id]");
  };
  const memory = await MemoryController.create({ redact });
  const added = await memory.add({
    role: "user",
    content: [
      { type: "text", text: "badge ACME-123456 and ACME-654321" },
      { type: "image_url", image_url: { url: "https://x.test/a.png" } },
    ],
  });
  assert.deepEqual(added.redacted, { "acme-id": 2 });
  const [item] = await memory.history();
  assert.equal(item.message.content[0].text, "badge [redacted:acme-id] and [redacted:acme-id]");
  assert.equal(item.message.content[1].type, "image_url", "structure is not passed to the function");
  assert.ok(!seen.includes("text") && !seen.includes("image_url"));
  // The built-in scanners do not run beside it; the host composes them if it wants.
  const kept = await memory.remember({ text: `key ${SECRETS["openai-key"]}` });
  assert.equal(kept.redacted, undefined);
  // A placeholder already in the text is not counted again.
  assert.equal((await memory.add({ role: "user", content: "[redacted:acme-id] was here" })).redacted, undefined);
});

test("a host function that throws or returns no string: REDACT_FAILED, nothing stored", async () => {
  for (const redact of [
    () => {
      throw new Error("scanner down");
    },
    async () => Promise.reject(new Error("later")),
    () => 42,
  ]) {
    const storage = memoryStorage();
    const memory = await MemoryController.create({ storage, redact });
    await assert.rejects(memory.add({ role: "user", content: "hello" }), { name: "MemoryError", code: "REDACT_FAILED" });
    await assert.rejects(memory.remember({ text: "a fact" }), { code: "REDACT_FAILED" });
    assert.deepEqual(await memory.history(), []);
    assert.deepEqual(await memory.facts(), []);
    assert.deepEqual(await storage.loadRange([]), []);
  }
});

test("bad redact options are INVALID_INPUT", async () => {
  for (const redact of [3, "yes", { pii: true }, { personal: "yes" }]) {
    await assert.rejects(MemoryController.create({ redact }), { code: "INVALID_INPUT" }, JSON.stringify(redact));
  }
  for (const redact of [true, null, {}, { personal: false }, { credentials: false, personal: true }]) {
    await (await MemoryController.create({ redact })).close();
  }
  const personalOnly = await MemoryController.create({ redact: { credentials: false, personal: true } });
  const out = await personalOnly.add({ role: "user", content: `${SECRETS["github-token"]} ${PERSONAL.email}` });
  assert.deepEqual(out.redacted, { email: 1 });
});

test("redactText: the built-in scanners for a host's own function or its logs", async () => {
  await (await MemoryController.create()).close(); // loads the module
  const text = `key ${SECRETS["openai-key"]}, mail ${PERSONAL.email}, badge ACME-123456`;
  assert.deepEqual(redactText(text), {
    text: `key [redacted:openai-key], mail ${PERSONAL.email}, badge ACME-123456`,
    redacted: { "openai-key": 1 },
  });
  assert.deepEqual(redactText(text, { personal: true }).redacted, { "openai-key": 1, email: 1 });
  assert.throws(() => redactText(text, { pii: true }), { code: "INVALID_INPUT" });
  // Composed: the built-in scanners, then the host's rule; both reported.
  const memory = await MemoryController.create({ redact: (t) => redactText(t).text.replace(/ACME-\d{6}/g, "[redacted:acme-id]") });
  assert.deepEqual((await memory.add({ role: "user", content: text })).redacted, { "openai-key": 1, "acme-id": 1 });
});

test("memory.redact redacts as the controller does; the reranker gets the query redacted", async () => {
  const query = `why does ${SECRETS["openai-key"]} fail`;
  const seen = [];
  const reranker = async (q, texts) => (seen.push(q), texts.map((t) => t.length));
  const memory = await MemoryController.create({ reranker, redact: { personal: true } });
  assert.deepEqual(await memory.redact(`${query} for ${PERSONAL.email}`), {
    text: "why does [redacted:openai-key] fail for [redacted:email]",
    redacted: { "openai-key": 1, email: 1 },
  });
  await memory.add({ role: "user", content: "why does the deploy fail with 401" });
  await memory.add({ role: "assistant", content: "it does fail because the key was rotated" });
  await memory.search(query);
  assert.deepEqual(seen, ["why does [redacted:openai-key] fail"]);
  const hosted = await MemoryController.create({ redact: (t) => t.toUpperCase() });
  assert.deepEqual(await hosted.redact("abc"), { text: "ABC", redacted: {} });
  const broken = await MemoryController.create({ redact: () => null });
  await assert.rejects(broken.redact("abc"), { code: "REDACT_FAILED" });
});

test("AI SDK middleware, the whole conversation on every call: turns that carried a secret are stored once, redacted", async (t) => {
  const key = SECRETS["openai-key"];
  const s = await setup(t, { script: [`Your key ${key} is revoked; rotate it.`, "You're welcome."] });
  const first = { role: "user", content: `my key ${key} leaked` };
  await generateText({ model: s.model, messages: [first] });
  // The reply echoed the key: neither turn the app sends back matches memory byte for byte.
  await generateText({
    model: s.model,
    messages: [first, { role: "assistant", content: `Your key ${key} is revoked; rotate it.` }, { role: "user", content: "thanks" }],
  });
  const held = await assertSound(s, {
    requests: 2,
    stored: [
      { role: "user", content: "my key [redacted:openai-key] leaked" },
      { role: "assistant", content: "Your key [redacted:openai-key] is revoked; rotate it." },
      { role: "user", content: "thanks" },
      { role: "assistant", content: "You're welcome." },
    ],
  });
  assert.deepEqual(leaked(JSON.stringify(held), credentialValues()), []);
});
