// The same built package imports and counts tokens exactly in headless
// Chromium (Debian's chromium via playwright-core) and in workerd (miniflare).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { WORKERD_MODULE_RULES, withPageResult } from "./harness.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const sample = 'Hello, 世界! 我们明天去成都吃火锅 🌶️. const x = {"a": [1, 2, 3]}; <|endoftext|>';
const want = encode(sample, { disallowedSpecial: new Set() }).length;

test("headless Chromium: import, create, count, build a context", () =>
  withPageResult(`/tests/js/browser/index.html?text=${encodeURIComponent(sample)}`, 30_000, async (result, page) => {
    assert.equal(result.count, want);
    assert.ok(result.contextTokens <= 200 && result.contextTokens === result.recount);
    assert.deepEqual(Object.keys(result.reload), ["indexedDB", "localStorage"]);
    for (const [name, r] of Object.entries(result.reload)) {
      assert.equal(r.before.history.length, 25);
      assert.ok(r.before.episodes.length > 0, `${name}: expected compaction`);
      assert.deepEqual(r.after, r.before, `${name}: state after reload`);
    }
    await mkdir(join(root, "test-artifacts"), { recursive: true });
    await page.screenshot({ path: join(root, "test-artifacts", "browser-smoke.png") });
  }));

test("workerd (miniflare): import, create, count, build a context", async () => {
  const mf = new Miniflare({
    modules: true,
    modulesRoot: root,
    scriptPath: join(root, "tests/js/worker/worker.mjs"),
    modulesRules: WORKERD_MODULE_RULES,
    compatibilityDate: "2026-04-01",
    kvNamespaces: ["KV"],
    durableObjects: { MEM: "MemoryObject" },
  });
  try {
    const res = await mf.dispatchFetch(`http://localhost/?text=${encodeURIComponent(sample)}`);
    const result = await res.json();
    assert.equal(result.error, undefined, result.error);
    assert.equal(result.count, want);
    assert.ok(result.contextTokens <= 200 && result.contextTokens === result.recount);
    // Reload through Workers KV and Durable Object storage: a new controller per request.
    for (const backend of ["kv", "do"]) {
      const written = await (await mf.dispatchFetch(`http://localhost/${backend}/write`)).json();
      assert.equal(written.error, undefined, written.error);
      const reloaded = await (await mf.dispatchFetch(`http://localhost/${backend}/read`)).json();
      assert.equal(reloaded.error, undefined, reloaded.error);
      assert.equal(written.history.length, 25);
      assert.ok(written.episodes.length > 0, `${backend}: expected compaction`);
      assert.deepEqual(reloaded, written, `${backend}: state after reload`);
    }
  } finally {
    await mf.dispose();
  }
});
