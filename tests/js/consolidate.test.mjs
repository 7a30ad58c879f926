// consolidate() with a summarizer, through the built package: the request
// (purpose "consolidation"), the built-in prompt of openAICompatibleSummarizer
// against a local OpenAI-compatible server, the answer applied as far as the
// rules allow, its usage charged to cost.byPurpose.consolidation; and the
// chaos a model brings: slow (past the deadline, on a manual clock), failing,
// garbage answers. Whatever happens, the offline rules decide instead and no
// fact is lost. The crash runs are in tests/js/faults/consolidate-run.mjs.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { MemoryController, openAICompatibleSummarizer } from "../../dist/node.js";
import { clock } from "../../dist/hooks/hooks-shared.js";
import { startFakeOpenAI, chat, json, hang } from "./hooks/fake-openai.mjs";
import { manualClock, recordingFetch, until, watch } from "./hooks/check.mjs";

const NOW = Date.UTC(2026, 3, 15);
let server;
before(async () => (server = await startFakeOpenAI()));
after(() => server.close());
beforeEach(() => server.reset());

const builtIn = (opts = {}) =>
  openAICompatibleSummarizer({ baseURL: server.baseURL, apiKey: "sk-test", model: "gpt-4o-mini", maxRetries: 0, ...opts });

/** Three likes that say the same, a home that moved, a job: what each test stores, with their ids. */
async function seed(memory) {
  const ids = {};
  ids.spicy = [];
  for (const [i, text] of ["I like spicy food.", "I love spicy dishes.", "I like spicy food."].entries())
    ids.spicy.push((await memory.remember({ kind: "preference", text, validFrom: Date.UTC(2025, i, 1), supersedes: [] })).id);
  ids.shanghai = (await memory.remember({ text: "I live in Shanghai.", validFrom: Date.UTC(2024, 0, 1), supersedes: [] })).id;
  ids.berlin = (await memory.remember({ text: "I moved to Berlin.", validFrom: Date.UTC(2026, 2, 1), supersedes: [] })).id;
  ids.job = (await memory.remember({ text: "我在腾讯工作。", validFrom: Date.UTC(2025, 5, 1), supersedes: [] })).id;
  return ids;
}

/** Every id stored is live, or in history with what stands for it: nothing lost. */
async function nothingLost(memory, ids) {
  const live = await memory.facts();
  const stands = new Set(live.flatMap((f) => [f.id, ...(f.merges ?? [])]));
  const past = new Set();
  for (let t = Date.UTC(2024, 0, 1); t <= NOW; t += 15 * 86_400_000) for (const f of await memory.facts({ asOf: t })) past.add(f.id);
  for (const id of Object.values(ids).flat()) assert.ok(stands.has(id) || past.has(id), `${id} lost`);
  const texts = live.map((f) => f.text);
  assert.equal(new Set(texts).size, texts.length, `nothing live twice: ${JSON.stringify(texts)}`);
}

/** The offline consolidation of the seed, as a memory without a summarizer does it. */
async function offlineTexts() {
  const memory = await MemoryController.create({ model: "gpt-4o", clock: () => NOW });
  await seed(memory);
  await memory.consolidate();
  return (await memory.facts()).map((f) => f.text);
}

/** An OpenAI answer computed from the consolidation prompt it was sent: `decide(lines)` → the JSON content. */
const answering = (decide, usage) => (req, res, record) => {
  const lines = [...record.body.messages[1].content.matchAll(/^- \[([^\]]+)\] (\w+)[^:]*: (.*)$/gm)].map(([, id, kind, text]) => ({
    id,
    kind,
    text,
  }));
  return chat(JSON.stringify(decide(lines)), { model: "gpt-4o-mini", usage })(req, res, record);
};

test("the built-in summarizer consolidates: its prompt, the answer applied, the usage charged, not asked again until a fact changes", async () => {
  const memory = await MemoryController.create({ model: "gpt-4o", clock: () => NOW, summarizer: builtIn() });
  const ids = await seed(memory);
  server.script(
    answering(
      (lines) => {
        const id = (text) => lines.filter((l) => l.text.includes(text)).map((l) => l.id);
        return {
          merges: [{ ids: id("spicy"), text: "I like spicy food." }],
          supersedes: [{ id: id("Shanghai")[0], by: id("Berlin")[0] }],
          profile: "User profile:\n- lives in Berlin\n- works at Tencent",
        };
      },
      { prompt_tokens: 900, completion_tokens: 120, total_tokens: 1020 },
    ),
  );
  const out = await memory.consolidate();
  assert.equal(server.requests.length, 1);
  const body = server.requests[0].body;
  const [system, user] = body.messages;
  assert.equal(body.max_tokens, 2000, "consolidationMaxTokens by default");
  for (const key of ['"merges"', '"supersedes"', '"profile"', "at most 200 tokens", "Current profile", "Use only ids from the list"])
    assert.ok(system.content.includes(key), key);
  assert.match(user.content, /^Facts and preferences \(oldest first\):\n/);
  assert.match(user.content, new RegExp(`^- \\[${ids.spicy[0]}\\] preference, since 2025-01-01: I like spicy food\\.$`, "m"));
  assert.match(user.content, new RegExp(`^- \\[${ids.job}\\] fact, since 2025-06-01: 我在腾讯工作。$`, "m"));
  assert.ok(!user.content.includes("Current profile"), "no profile yet");

  assert.equal(out.source, "model");
  assert.equal(out.degraded, undefined);
  assert.deepEqual(out.superseded, [ids.shanghai]);
  assert.equal(out.merged.length, 2, "the likes, and Berlin restated to end Shanghai");
  assert.equal(out.profile, "User profile:\n- lives in Berlin\n- works at Tencent");
  const live = await memory.facts();
  assert.deepEqual(
    live.map((f) => f.text).sort(),
    ["I like spicy food.", "I moved to Berlin.", "User profile:\n- lives in Berlin\n- works at Tencent", "我在腾讯工作。"].sort(),
  );
  assert.deepEqual(live.find((f) => f.text === "I like spicy food.").merges, ids.spicy);
  await nothingLost(memory, ids);
  const cost = memory.stats().cost.byPurpose.find((p) => p.purpose === "consolidation");
  assert.ok(cost?.calls === 1 && cost.usd > 0, `charged to consolidation: ${JSON.stringify(memory.stats().cost.byPurpose)}`);
  const ctx = await memory.buildContext({ maxTokens: 2000 });
  assert.ok(
    ctx.messages.some((m) => m.content.includes("- lives in Berlin")),
    "the model's profile is pinned",
  );

  // Nothing stored since: nothing asked, nothing written.
  assert.deepEqual(await memory.consolidate(), { merged: [], superseded: [] });
  assert.equal(server.requests.length, 1);
  // A new fact: asked again, with the current profile.
  await memory.remember({ text: "I have a cat named Mochi." });
  server.script(
    answering(() => ({ merges: [], supersedes: [], profile: "User profile:\n- lives in Berlin\n- works at Tencent\n- has a cat" })),
  );
  const again = await memory.consolidate();
  assert.equal(server.requests.length, 2);
  assert.match(server.requests[1].body.messages[1].content, /Current profile:\nUser profile:\n- lives in Berlin/);
  assert.equal(again.source, "model");
  assert.equal(memory.stats().cost.byPurpose.find((p) => p.purpose === "consolidation").calls, 2);
});

test('a custom summarizer gets purpose "consolidation" and may answer with an object; what it may not decide is ignored', async () => {
  const requests = [];
  const summarizer = async (request) => {
    requests.push(request);
    const [a, b, c] = request.facts;
    return {
      merges: [
        { ids: [c.id, request.facts.at(-1).id], text: "a preference and a fact are not one" },
        { ids: [a.id, b.id, c.id, "f-not-sent"], text: "I like spicy food." },
      ],
      supersedes: [{ id: request.facts.at(-2).id, by: request.facts.at(-3).id }], // Berlin by Shanghai: the older cannot end the newer
      profile: `User profile:\n${"- likes spicy food\n".repeat(200)}`,
    };
  };
  const memory = await MemoryController.create({ model: "gpt-4o", clock: () => NOW, summarizer });
  const ids = await seed(memory);
  const out = await memory.consolidate();
  assert.equal(requests.length, 1);
  const [request] = requests;
  assert.equal(request.purpose, "consolidation");
  assert.equal(request.profileTokens, 200);
  assert.deepEqual(
    request.facts.map((f) => f.id),
    [...ids.spicy, ids.shanghai, ids.berlin, ids.job],
  );
  assert.deepEqual(Object.keys(request.facts[0]).sort(), ["id", "kind", "text", "validFrom"]);
  assert.equal(request.facts[0].validFrom, Date.UTC(2025, 0, 1));
  assert.equal(out.source, "model");
  assert.equal(out.merged.length, 1);
  assert.deepEqual(out.superseded, []);
  assert.ok(memory.countTokens(out.profile) <= 200 && out.profile.endsWith("- likes spicy food"), "cut to budget at a line");
  assert.equal((await memory.facts()).filter((f) => f.text.includes("Shanghai") || f.text.includes("Berlin")).length, 2, "both still hold");
  await nothingLost(memory, ids);
});

const garbage = [
  ["prose", "The user likes spicy food and lives in Berlin."],
  ["a summary object", { summary: "The user likes spicy food.", keyPoints: [], supersedes: [] }],
  ["JSON cut off", '{"merges": [{"ids": ["a", "b"], "text": "I like'],
  ["merges that are not an array", '{"merges": {"a": "b"}}'],
  ["a merge without ids", '{"merges": [{"text": "x"}], "profile": "User profile:"}'],
  ["an empty answer", ""],
  ["a number", 42],
  ["null", null],
  ["an HTML error page", "<html><body>502 Bad Gateway</body></html>"],
];
for (const [name, answer] of garbage) {
  test(`a summarizer that answers ${name}: the offline rules decide, SUMMARIZER_INVALID, nothing lost`, async () => {
    const memory = await MemoryController.create({ model: "gpt-4o", clock: () => NOW, summarizer: async () => answer });
    const ids = await seed(memory);
    const out = await memory.consolidate();
    assert.equal(out.source, "fallback");
    assert.equal(out.degraded?.code, "SUMMARIZER_INVALID", JSON.stringify(out.degraded));
    assert.deepEqual(out.superseded, [ids.shanghai]);
    assert.deepEqual(
      (await memory.facts()).map((f) => f.text),
      await offlineTexts(),
    );
    await nothingLost(memory, ids);
  });
}

const failing = [
  [
    "throws a MemoryError",
    () => Promise.reject(Object.assign(new Error("HTTP 503"), { name: "MemoryError", code: "SUMMARIZER_HTTP" })),
    "SUMMARIZER_HTTP",
  ],
  ["throws a plain Error", () => Promise.reject(new Error("boom")), "SUMMARIZER_FAILED"],
  [
    "throws synchronously",
    () => {
      throw new TypeError("not a function");
    },
    "SUMMARIZER_FAILED",
  ],
];
for (const [name, summarizer, code] of failing) {
  test(`a summarizer that ${name}: the offline rules decide, ${code}`, async () => {
    const memory = await MemoryController.create({ model: "gpt-4o", clock: () => NOW, summarizer });
    const ids = await seed(memory);
    const out = await memory.consolidate();
    assert.equal(out.source, "fallback");
    assert.equal(out.degraded?.code, code);
    assert.deepEqual(
      (await memory.facts()).map((f) => f.text),
      await offlineTexts(),
    );
    await nothingLost(memory, ids);
    assert.equal(
      memory.stats().cost.byPurpose.find((p) => p.purpose === "consolidation"),
      undefined,
      "nothing charged",
    );
  });
}

test("the built-in summarizer on HTTP 500: SUMMARIZER_HTTP, the offline rules decide", async () => {
  server.script(json(500, { error: { message: "internal" } }));
  const memory = await MemoryController.create({ model: "gpt-4o", clock: () => NOW, summarizer: builtIn() });
  const ids = await seed(memory);
  const out = await memory.consolidate();
  assert.equal(out.degraded?.code, "SUMMARIZER_HTTP");
  assert.deepEqual(
    (await memory.facts()).map((f) => f.text),
    await offlineTexts(),
  );
  await nothingLost(memory, ids);
});

test("the built-in summarizer past its deadline (a manual clock): SUMMARIZER_TIMEOUT at timeoutMs, the offline rules decide", async (t) => {
  const manual = manualClock(t, clock);
  const { fetch, calls } = recordingFetch(clock);
  server.script(hang());
  const memory = await MemoryController.create({ model: "gpt-4o", clock: () => NOW, summarizer: builtIn({ timeoutMs: 30_000, fetch }) });
  const ids = await seed(memory);
  const call = watch(memory.consolidate());
  await until(() => server.requests.length === 1);
  await manual.tick(29_999);
  assert.equal(call.settled, false, "still waiting 1 ms before the deadline");
  await manual.tick(1);
  assert.equal(calls[0].signal.aborted, true);
  const out = await call.promise;
  assert.equal(out.degraded?.code, "SUMMARIZER_TIMEOUT");
  assert.equal(out.source, "fallback");
  assert.deepEqual(
    (await memory.facts()).map((f) => f.text),
    await offlineTexts(),
  );
  await nothingLost(memory, ids);
});

test("a summarizer hook that never settles: summarizerTimeoutMs ends it (mocked timers), SUMMARIZER_TIMEOUT; changes go on meanwhile", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  let asked = 0;
  const memory = await MemoryController.create({
    model: "gpt-4o",
    clock: () => NOW,
    summarizer: () => (asked++, new Promise(() => {})),
    summarizerTimeoutMs: 45_000,
  });
  const ids = await seed(memory);
  const call = watch(memory.consolidate());
  while (asked === 0) await new Promise((r) => setImmediate(r));
  // The model is awaited outside the queue: a change made meanwhile is not held up.
  ids.later = (await memory.remember({ text: "My sister lives in Paris.", supersedes: [] })).id;
  t.mock.timers.tick(44_999);
  await new Promise((r) => setImmediate(r));
  assert.equal(call.settled, false);
  t.mock.timers.tick(1);
  const out = await call.promise;
  assert.equal(out.degraded?.code, "SUMMARIZER_TIMEOUT");
  assert.match(out.degraded.message, /45000 ms/);
  assert.deepEqual(out.superseded, [ids.shanghai]);
  await nothingLost(memory, ids);
});

test("a fact ended while the model was answering is not merged: the answer is checked against what holds when it comes", async () => {
  let answer;
  const summarizer = (request) =>
    new Promise((resolve) => {
      answer = () =>
        resolve({ merges: [{ ids: request.facts.filter((f) => f.kind === "preference").map((f) => f.id), text: "I like spicy food." }] });
    });
  const memory = await MemoryController.create({ model: "gpt-4o", clock: () => NOW, summarizer });
  const ids = await seed(memory);
  const call = memory.consolidate();
  while (!answer) await new Promise((r) => setImmediate(r));
  const stop = await memory.remember({ kind: "preference", text: "I no longer eat spicy food.", supersedes: ids.spicy.slice(1) });
  answer();
  const out = await call;
  assert.equal(out.source, "model");
  assert.deepEqual(out.merged, [], "two of the three were ended meanwhile: one is left, nothing to merge");
  const live = (await memory.facts()).map((f) => f.id);
  assert.ok(live.includes(ids.spicy[0]) && live.includes(stop.id));
  await nothingLost(memory, { ...ids, stop: stop.id });
});

test("openAICompatibleSummarizer: consolidationMaxTokens is checked, and a consolidation request needs its facts", async () => {
  assert.throws(() => builtIn({ consolidationMaxTokens: 0 }), { code: "INVALID_INPUT" });
  assert.throws(() => builtIn({ consolidationMaxTokens: 1.5 }), { code: "INVALID_INPUT" });
  await assert.rejects(builtIn()({ purpose: "consolidation" }), { code: "INVALID_INPUT", message: /request\.facts/ });
  server.script(chat('{"merges":[],"profile":""}'));
  await builtIn({ consolidationMaxTokens: 800 })({ purpose: "consolidation", facts: [], profileTokens: 120, language: "Chinese" });
  const [system] = server.requests[0].body.messages;
  assert.equal(server.requests[0].body.max_tokens, 800);
  assert.match(system.content, /at most 120 tokens/);
  assert.match(system.content, /Write every string value in Chinese/);
});
