// examples/worker, as a user deploys it: bundled by wrangler (`deploy
// --dry-run`, offline) with `agent-memory` resolved through its package.json
// exports (the `file:../..` dependency, linked the way npm links it), then
// the bundle run in workerd by miniflare with SQLite-backed Durable Objects
// persisted to disk. Covers: state across requests, across Durable Object
// restarts (a new runtime on the same persist dir), two users isolated,
// forgetting a user, HTTP errors; and measures the upload size against the
// Workers Free 3 MB (compressed) limit and wasm memory against 128 MB.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { Miniflare } from "miniflare";
import { bundleWorker, compatibilityDateOf, runWorker } from "./harness.mjs";
import { startFakeOpenAI, chat } from "./hooks/fake-openai.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const example = join(root, "examples", "worker");
const MB = 1024 * 1024;
let tmp, bundle, persist, mf, wranglerReport;
const figures = {};

function bundleExample() {
  // What `npm install` does for the `file:../..` dependency: a link to the repo.
  const out = bundleWorker(example, tmp, bundle, { "agent-memory": root });
  wranglerReport = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(out);
}

const compatibilityDate = () => compatibilityDateOf(example);

function start() {
  return runWorker(example, bundle, {
    durableObjects: { MEMORY: { className: "MemoryObject", useSQLite: true } },
    durableObjectsPersist: persist,
  });
}

async function call(method, path, body) {
  const res = await mf.dispatchFetch(`http://localhost${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}
const ok = async (method, path, body) => {
  const r = await call(method, path, body);
  assert.equal(r.status, 200, `${method} ${path}: ${JSON.stringify(r.body)}`);
  return r.body;
};

before(() => {
  tmp = mkdtempSync(join(tmpdir(), "am-worker-"));
  bundle = join(tmp, "bundle");
  persist = join(tmp, "persist");
  bundleExample();
  mf = start();
});

after(async () => {
  await mf?.dispose();
  mkdirSync(join(root, "test-artifacts"), { recursive: true });
  writeFileSync(join(root, "test-artifacts", "worker-example.json"), JSON.stringify(figures, null, 2) + "\n");
  rmSync(tmp, { recursive: true, force: true });
});

// VmHWM (peak RSS) of each workerd process miniflare started, by pid (Linux only).
function workerdPeakRss() {
  const peaks = new Map();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      if (!/^Name:\s*workerd/m.test(status) || Number(/^PPid:\s*(\d+)/m.exec(status)[1]) !== process.pid) continue;
      peaks.set(pid, Number(/^VmHWM:\s*(\d+) kB/m.exec(status)[1]) * 1024);
    } catch {
      // a process that ended meanwhile, or no /proc
    }
  }
  return peaks;
}

// The same runtime serving a trivial Worker: what workerd itself takes.
async function baselineRss() {
  const seen = workerdPeakRss();
  const idle = new Miniflare({
    modules: true,
    script: "export default { fetch() { return new Response('ok') } }",
    compatibilityDate: compatibilityDate(),
  });
  try {
    await (await idle.dispatchFetch("http://localhost/")).text();
    return [...workerdPeakRss()].find(([pid]) => !seen.has(pid))?.[1];
  } finally {
    await idle.dispose();
  }
}

// A conversation long enough to compact (working memory 4000 tokens).
const turn = (i) =>
  i % 2 === 0
    ? {
        role: "user",
        content: `第${i}轮：我们在计划成都的行程，第 ${i} 天想去宽窄巷子、人民公园和锦里，预算大约 ${300 + i} 元。Please keep the plan short.`,
      }
    : {
        role: "assistant",
        content: `Day ${i}: 宽窄巷子 in the morning, 人民公园 tea house after lunch, 锦里 at night — about ${300 + i} yuan in total.`,
      };

test("a user's memory lasts across requests", async () => {
  await ok("POST", "/u/alice/messages", { role: "system", content: "You are a travel assistant. 回答要简洁。" });
  const first = await ok("POST", "/u/alice/messages", { role: "user", content: "明天成都天气怎么样？" });
  assert.deepEqual(Object.keys(first).sort(), ["id", "tokens"]);
  assert.equal(typeof first.id, "string");
  assert.ok(first.tokens > 0);
  await ok("POST", "/u/alice/messages", {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"成都"}' } },
      { id: "call_2", type: "function", function: { name: "aqi", arguments: '{"city":"成都"}' } },
    ],
  });
  await ok("POST", "/u/alice/messages", { role: "tool", tool_call_id: "call_1", content: '{"temp":21,"sky":"多云"}' });
  await ok("POST", "/u/alice/messages", { role: "tool", tool_call_id: "call_2", content: '{"aqi":48}' });
  await ok("POST", "/u/alice/facts", { key: "diet", text: "Alice is allergic to peanuts (花生过敏)", kind: "preference" });
  await ok("POST", "/u/alice/facts", { key: "home", text: "Alice lives in Shanghai" });

  const ctx = await ok("GET", "/u/alice/context?maxTokens=2000&query=" + encodeURIComponent("where does Alice live"));
  assert.ok(ctx.tokens <= 2000);
  assert.equal(ctx.messages[0].role, "system");
  assert.match(JSON.stringify(ctx.messages), /花生过敏/, "the preference is pinned in the context");
  assert.match(JSON.stringify(ctx.messages), /Shanghai/, "the fact matching the query is in the knowledge block");
  assert.ok(
    ctx.messages.some((m) => m.tool_call_id === "call_2"),
    "the tool group entered whole",
  );

  let compactions = 0;
  for (let i = 0; i < 120; i++) if ((await ok("POST", "/u/alice/messages", turn(i))).compaction) compactions++;
  const stats = await ok("GET", "/u/alice/stats");
  assert.equal(stats.messages.total, 125);
  assert.ok(compactions > 0 && stats.episodes > 0 && stats.messages.archived > 0, `compacted: ${JSON.stringify(stats.messages)}`);
  const small = await ok("GET", "/u/alice/context?maxTokens=1500&reserveOutput=300");
  assert.ok(small.tokens <= 1200);
  assert.ok(small.sections.summary.hiddenMessages > 0, "older turns are summarized, not dropped");
  figures.wasmMemoryBytesAfter125Messages = stats.wasmMemoryBytes;
});

test("two users are isolated", async () => {
  const bob = await ok("POST", "/u/bob/messages", { role: "user", content: "Hi, I'm Bob. Remember that I prefer trains." });
  assert.equal(typeof bob.id, "string");
  const ctx = await ok("GET", "/u/bob/context?query=peanuts");
  assert.doesNotMatch(JSON.stringify(ctx), /Alice|花生|成都/);
  assert.equal((await ok("GET", "/u/bob/history")).length, 1);
  assert.equal((await ok("GET", "/u/alice/stats")).messages.total, 125);
});

test("the history survives a Durable Object restart", async () => {
  const before = {
    alice: await ok("GET", "/u/alice/history"),
    bob: await ok("GET", "/u/bob/history"),
    ctx: await ok("GET", "/u/alice/context?maxTokens=3000&query=peanuts"),
  };
  await mf.dispose(); // the workerd process ends: every object instance and controller is gone
  mf = start();
  assert.deepEqual(await ok("GET", "/u/alice/history"), before.alice);
  assert.deepEqual(await ok("GET", "/u/bob/history"), before.bob);
  assert.deepEqual(await ok("GET", "/u/alice/context?maxTokens=3000&query=peanuts"), before.ctx);
  const next = await ok("POST", "/u/alice/messages", { role: "user", content: "还记得我的过敏吗？" });
  assert.ok(!before.alice.some((h) => h.id === next.id), "a new id after the restart");
  assert.equal((await ok("GET", "/u/alice/history")).at(-1).id, next.id);
});

test("DELETE /u/:user forgets that user only, for good", async () => {
  const forgot = await ok("DELETE", "/u/bob");
  assert.equal(forgot.messages, 1);
  assert.equal((await ok("GET", "/u/bob/stats")).messages.total, 0);
  const alice = await ok("GET", "/u/alice/history");
  assert.equal(alice.length, 126);
  await mf.dispose();
  mf = start();
  assert.deepEqual(await ok("GET", "/u/bob/history"), []);
  assert.deepEqual(await ok("GET", "/u/alice/history"), alice);
});

test("HTTP errors carry the MemoryError code", async () => {
  const cases = [
    [["POST", "/u/carol/messages", "{not json"], 400, "INVALID_JSON"],
    [["POST", "/u/carol/messages", { role: "wizard", content: "x" }], 400, "INVALID_ROLE"],
    [["POST", "/u/carol/messages", { role: "tool", tool_call_id: "nope", content: "x" }], 400, "TOOL_RESULT_WITHOUT_CALL"],
    [["GET", "/u/carol/context?maxTokens=lots"], 400, "INVALID_INPUT"],
    [["GET", "/u/carol/context?maxTokens=5"], 422, "CONTEXT_OVERFLOW"],
    [["GET", "/u/a%20b/stats"], 400, "INVALID_USER"],
    [["GET", "/u/carol/nothing"], 404, "NOT_FOUND"],
    [["GET", "/elsewhere"], 404, "NOT_FOUND"],
  ];
  await ok("POST", "/u/carol/messages", { role: "user", content: "a question long enough that five tokens cannot hold it" });
  for (const [args, status, code] of cases) {
    const r = await call(...args);
    assert.equal(r.status, status, `${args[0]} ${args[1]}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.error.code, code);
  }
});

test("memory: a heavier user stays far below the 128 MB isolate limit", async () => {
  // Both users' objects run in one isolate here, as they may in production.
  for (let i = 0; i < 300; i++) await ok("POST", "/u/dave/messages", { ...turn(i), content: turn(i).content.repeat(3) });
  await ok("GET", "/u/dave/context?maxTokens=8000&query=" + encodeURIComponent("宽窄巷子 budget"));
  const { wasmMemoryBytes } = await ok("GET", "/u/dave/stats");
  figures.wasmMemoryBytesPeak = wasmMemoryBytes; // wasm memory never shrinks: the last reading is the peak
  // The whole runtime process, for scale: peak RSS with this Worker against
  // the same workerd serving a trivial Worker.
  figures.workerdPeakRssBytes = Math.max(...workerdPeakRss().values());
  figures.workerdBaselineRssBytes = await baselineRss();
  const mb = (n) => `${(n / MB).toFixed(1)} MB`;
  console.log(
    `wasm memory ${mb(wasmMemoryBytes)} (limit 128 MB); workerd peak RSS ${mb(figures.workerdPeakRssBytes)}, ${mb(figures.workerdBaselineRssBytes)} for a trivial Worker`,
  );
  assert.ok(wasmMemoryBytes < 32 * MB, `${(wasmMemoryBytes / MB).toFixed(1)} MB of wasm memory`);
});

// What a user tells the Worker over a few sessions: likes said three times, a move.
async function tellFacts(at, path) {
  const facts = [
    { kind: "preference", text: "I like spicy food.", validFrom: Date.UTC(2025, 0, 1) },
    { kind: "preference", text: "I love spicy dishes.", validFrom: Date.UTC(2025, 1, 1) },
    { kind: "preference", text: "I like spicy food.", validFrom: Date.UTC(2025, 2, 1) },
    { text: "I live in Shanghai.", validFrom: Date.UTC(2024, 0, 1) },
    { text: "I moved to Berlin.", validFrom: Date.UTC(2026, 2, 1) },
  ];
  const ids = [];
  for (const f of facts) ids.push((await at("POST", `${path}/facts`, { ...f, supersedes: [] })).id);
  return ids;
}

test("POST /u/:user/consolidate consolidates now (offline here); a write sets the idle alarm, DELETE clears it", async () => {
  const [spicy1, , spicy3, shanghai] = await tellFacts(ok, "/u/erin");
  const stats = await ok("GET", "/u/erin/stats");
  assert.equal(typeof stats.consolidateAt, "number", "a write set the alarm (10 minutes on: not reached during the test)");
  const out = await ok("POST", "/u/erin/consolidate");
  assert.equal(out.source, "fallback");
  assert.deepEqual(out.superseded, [shanghai]);
  const facts = await ok("GET", "/u/erin/facts");
  const merged = facts.find((f) => f.merges?.includes(spicy1));
  assert.ok(merged?.merges.includes(spicy3), JSON.stringify(facts));
  assert.ok(!facts.some((f) => f.id === shanghai) && facts.some((f) => f.key === "profile"));
  await ok("DELETE", "/u/erin");
  assert.equal((await ok("GET", "/u/erin/stats")).consolidateAt, null, "forgotten: no alarm left");
});

test("an idle user's memory is consolidated by the Durable Object's alarm, through the summarizer model", async () => {
  // A second runtime with the idle delay short and the built-in summarizer on a fake OpenAI API.
  const api = await startFakeOpenAI();
  api.script((req, res, record) => {
    const lines = [...record.body.messages[1].content.matchAll(/^- \[([^\]]+)\] \w+[^:]*: (.*)$/gm)].map(([, id, text]) => ({ id, text }));
    const ids = (word) => lines.filter((l) => l.text.includes(word)).map((l) => l.id);
    const answer = {
      merges: [{ ids: ids("spicy"), text: "I like spicy food." }],
      supersedes: [{ id: ids("Shanghai")[0], by: ids("Berlin")[0] }],
      profile: "User profile:\n- lives in Berlin",
    };
    return chat(JSON.stringify(answer), { model: "gpt-4o-mini" })(req, res, record);
  });
  const idle = runWorker(example, bundle, {
    durableObjects: { MEMORY: { className: "MemoryObject", useSQLite: true } },
    durableObjectsPersist: join(tmp, "persist-idle"),
    bindings: {
      CONSOLIDATE_AFTER_MS: "200",
      SUMMARIZER_BASE_URL: api.baseURL,
      SUMMARIZER_MODEL: "gpt-4o-mini",
      SUMMARIZER_API_KEY: "sk-test",
    },
  });
  try {
    const at = async (method, path, body) => {
      const res = await idle.dispatchFetch(`http://localhost${path}`, { method, body: body && JSON.stringify(body) });
      assert.equal(res.status, 200, path);
      return res.json();
    };
    const [spicy1, , , shanghai] = await tellFacts(at, "/u/frank");
    // The alarm fires once frank has been idle for 200 ms; the test waits for what it does, not for a time.
    // (The limit only stops a test whose alarm never comes.)
    let facts = [];
    for (const limit = performance.now() + 20_000; !facts.some((f) => f.key === "profile"); ) {
      assert.ok(performance.now() < limit, "the alarm never consolidated");
      await new Promise((r) => setTimeout(r, 50));
      facts = await at("GET", "/u/frank/facts");
    }
    assert.equal(api.requests.length, 1, "one consolidation request");
    assert.equal(api.requests[0].body.messages[0].content.includes('"merges"'), true);
    assert.deepEqual(
      facts.map((f) => f.text),
      ["I like spicy food.", "I moved to Berlin.", "User profile:\n- lives in Berlin"],
    );
    assert.ok(facts[0].merges.includes(spicy1) && !facts.some((f) => f.id === shanghai));
    const stats = await at("GET", "/u/frank/stats");
    assert.equal(stats.consolidateAt, null, "the alarm ran and none is set");
    assert.equal(stats.cost.byPurpose.find((p) => p.purpose === "consolidation")?.calls, 1);
  } finally {
    await idle.dispose();
    await api.close();
  }
});

test("size: the upload fits Workers Free (3 MB compressed)", () => {
  // Workers count the compressed size of the whole upload: the script and
  // every module (wasm, rank data). The rank .bin assets are gzip already.
  const files = readdirSync(bundle).filter((f) => /\.(js|wasm|bin)$/.test(f));
  const raw = files.reduce((n, f) => n + readFileSync(join(bundle, f)).length, 0);
  const gzip = files.reduce((n, f) => n + gzipSync(readFileSync(join(bundle, f)), { level: 9 }).length, 0);
  Object.assign(figures, {
    modules: Object.fromEntries(files.map((f) => [f.replace(/^[0-9a-f]{40}-/, ""), readFileSync(join(bundle, f)).length])),
    uploadRawBytes: raw,
    uploadGzipBytes: gzip,
    wranglerReport: wranglerReport && { totalKiB: Number(wranglerReport[1]), gzipKiB: Number(wranglerReport[2]) },
  });
  console.log(
    `worker upload: ${(raw / MB).toFixed(2)} MB raw, ${(gzip / MB).toFixed(2)} MB gzip (limit 3 MB); wrangler says ${wranglerReport?.[0]}`,
  );
  assert.ok(gzip < 3 * 1000 * 1000, `${gzip} bytes gzip`);
  assert.ok(Number(wranglerReport?.[2]) * 1024 < 3 * 1000 * 1000);
});
