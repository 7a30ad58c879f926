// The built package's Node adapters pass the acceptance suite for real (the
// file adapter on disk, in a temp dir), and the file adapter survives what a
// disk sees in practice: leftover temp files, writers killed mid-write,
// several processes writing one key, keys that look like paths.
// Node-dependent: nodeFileStorage on node:fs (rename, temp files, several processes).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { fork } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryStorage, nodeFileStorage } from "../../dist/node.js";
import { runStorageAdapterTests, storageAdapterTestNames } from "../../dist/testing.js";

const tmp = mkdtempSync(join(tmpdir(), "agent-memory-storage-"));
after(() => rmSync(tmp, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(tmp, `store-${dirs++}`);

// One node:test per case, so a failure names the case.
for (const [label, make] of [
  ["memoryStorage", () => memoryStorage()],
  ["nodeFileStorage", () => nodeFileStorage(freshDir())],
]) {
  for (const name of storageAdapterTestNames) {
    test(`${label}: ${name}`, async () => {
      const [result] = await runStorageAdapterTests(make, { only: [name] });
      assert.ok(result.ok, result.error);
    });
  }
}

// Every path below `dir`, relative.
function tree(dir, base = "") {
  return readdirSync(join(dir, base), { withFileTypes: true }).flatMap((e) => {
    const rel = base ? `${base}/${e.name}` : e.name;
    return e.isDirectory() ? [rel, ...tree(dir, rel)] : [rel];
  });
}

test("nodeFileStorage: leftover temp files from an interrupted write are ignored, and removeRange deletes them", async () => {
  const dir = freshDir();
  const storage = nodeFileStorage(dir);
  const v = new Uint8Array([1, 2, 3]);
  await storage.save(["ns", "a"], v);
  // What a crash between open and rename leaves: a partial temp file next to the target.
  writeFileSync(join(dir, "ns", `.a.v.deadbeef.tmp`), new Uint8Array(10).fill(9));
  writeFileSync(join(dir, "ns", `.b.v.deadbee0.tmp`), new Uint8Array(10).fill(9));
  writeFileSync(join(dir, `.ns.v.deadbee1.tmp`), new Uint8Array(10).fill(9));
  assert.deepEqual(await storage.load(["ns", "a"]), v);
  assert.equal(await storage.load(["ns", "b"]), undefined);
  assert.deepEqual(await storage.loadRange([]), [{ key: ["ns", "a"], data: v }]);
  assert.deepEqual(await storage.loadRange(["ns"]), [{ key: ["ns", "a"], data: v }]);
  await storage.removeRange(["ns"]);
  assert.deepEqual(tree(dir), [], "removeRange leaves no file of the range, temp files included");
});

// A writer child process, once it is about to write (rejects if it dies first).
async function writer(dir, seed) {
  const child = fork(new URL("./storage/file-writer.mjs", import.meta.url), [dir, String(seed)], { stdio: "ignore" });
  await new Promise((resolve, reject) => {
    child.once("message", resolve);
    child.once("exit", (code) => reject(new Error(`writer exited early (${code})`)));
  });
  return child;
}
/** Resolves once `child` has reported `n` completed saves (it is then in the middle of the next). */
const saves = (child, n) =>
  new Promise((resolve, reject) => {
    let seen = 0;
    const on = (m) => m === "saved" && ++seen >= n && (child.off("message", on), resolve());
    child.on("message", on);
    child.once("exit", (code) => reject(new Error(`writer exited early (${code})`)));
  });
const killed = (child) =>
  child.exitCode !== null || child.signalCode !== null
    ? undefined
    : new Promise((resolve) => (child.once("exit", resolve), child.kill("SIGKILL")));

test("nodeFileStorage: a writer killed mid-write (SIGKILL) never leaves a torn value", async () => {
  const dir = freshDir();
  const storage = nodeFileStorage(dir);
  for (let round = 0; round < 6; round++) {
    const child = await writer(dir, round);
    await saves(child, 1 + round * 3);
    await killed(child);
    const got = await storage.load(["crash", "k"]);
    if (got === undefined) continue; // killed before its first rename
    assert.equal(got.length, 256 * 1024);
    assert.ok(
      got.every((b) => b === got[0]),
      `round ${round}: torn value`,
    );
    const range = await storage.loadRange(["crash"]);
    assert.equal(range.length, 1, "temp files left by the kill are not values");
  }
});

test("nodeFileStorage: three processes writing one key, a reader only ever sees whole values", async () => {
  const dir = freshDir();
  const storage = nodeFileStorage(dir);
  const children = await Promise.all([1, 2, 3].map((seed) => writer(dir, seed)));
  try {
    // Read only once each has saved: 300 quick reads could otherwise all come before the first save.
    await Promise.all(children.map((child) => saves(child, 1)));
    let seen = 0;
    for (let i = 0; i < 300; i++) {
      const got = await storage.load(["crash", "k"]);
      if (got === undefined) continue;
      seen++;
      assert.equal(got.length, 256 * 1024);
      assert.ok(
        got.every((b) => b === got[0]),
        "torn value under concurrent writers",
      );
    }
    assert.ok(seen > 0);
  } finally {
    await Promise.all(children.map(killed));
  }
});

test("nodeFileStorage: keys that look like paths stay inside dir, with safe file names", async () => {
  const root = freshDir();
  const dir = join(root, "store");
  mkdirSync(root);
  const storage = nodeFileStorage(dir);
  const keys = [[".."], ["..", "..", "escape"], ["/etc/passwd"], ["a\\..\\b"], ["CON"], ["nul"], [""], ["A"], ["a"], ["x.v"], ["ü"]];
  for (const [i, k] of keys.entries()) await storage.save(k, new Uint8Array([i]));
  assert.deepEqual(readdirSync(root), ["store"], "nothing written outside dir");
  for (const path of tree(dir)) {
    for (const part of path.split("/")) assert.match(part, /^(%|[a-z0-9_-]|%[0-9A-F]{2})+(\.v)?$/, `unsafe name ${part}`);
    assert.doesNotMatch(path, /(^|\/)(con|nul)(\.v)?(\/|$)/, "Windows device name");
  }
  for (const [i, k] of keys.entries()) assert.deepEqual(await storage.load(k), new Uint8Array([i]));
  assert.equal((await storage.loadRange([])).length, keys.length);
});

test("nodeFileStorage: errors are MemoryErrors with stable codes", async () => {
  const storage = nodeFileStorage(freshDir());
  const code = (p) =>
    p.then(
      () => "resolved",
      (e) => `${e.name}:${e.code}`,
    );
  assert.equal(await code(storage.save(["x".repeat(239)], new Uint8Array(1))), "MemoryError:STORAGE_KEY_TOO_LONG");
  assert.equal(await code(storage.save(["x".repeat(238), "y".repeat(238)], new Uint8Array(1))), "resolved");
  assert.equal(await code(storage.save(["好".repeat(30)], new Uint8Array(1))), "MemoryError:STORAGE_KEY_TOO_LONG");
  assert.equal(await code(storage.load(["x".repeat(239)])), "MemoryError:STORAGE_KEY_TOO_LONG");
  assert.deepEqual(await storage.loadRange(["x".repeat(239)]), [], "a range no key can be in is empty");
  assert.equal(await code(storage.removeRange(["x".repeat(239)])), "resolved");
  assert.equal(await code(storage.save([], new Uint8Array(1))), "MemoryError:INVALID_INPUT");
  assert.equal(await code(storage.save("k", new Uint8Array(1))), "MemoryError:INVALID_INPUT");
  assert.equal(await code(storage.save(["k"], "text")), "MemoryError:INVALID_INPUT");
  assert.equal(await code(storage.load([1])), "MemoryError:INVALID_INPUT");
  // A directory that is a file: the backend's own error, wrapped.
  const file = join(tmp, "not-a-dir");
  writeFileSync(file, "x");
  assert.equal(await code(nodeFileStorage(file).save(["k"], new Uint8Array(1))), "MemoryError:STORAGE_ERROR");
  assert.ok(statSync(file).isFile());
});

test("memoryStorage: errors are MemoryErrors with stable codes", async () => {
  const storage = memoryStorage();
  await assert.rejects(storage.save(["k"], [1, 2]), { name: "MemoryError", code: "INVALID_INPUT" });
  await assert.rejects(storage.loadRange("k"), { name: "MemoryError", code: "INVALID_INPUT" });
});

test("localStorage's base64 codec: the chunked fallback matches Buffer, at chunk edges and 1 MB", async () => {
  const { bytesToBase64, base64ToBytes } = await import("../../dist/storage/storage-local.js");
  // Force the fallback even on runtimes with Uint8Array#toBase64 / fromBase64.
  const native = [
    Object.getOwnPropertyDescriptor(Uint8Array.prototype, "toBase64"),
    Object.getOwnPropertyDescriptor(Uint8Array, "fromBase64"),
  ];
  delete Uint8Array.prototype.toBase64;
  delete Uint8Array.fromBase64;
  try {
    for (const n of [0, 1, 2, 3, 0x7fff, 0x8000, 0x8001, 3 * 0x8000 + 2, 1024 * 1024]) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 7919 + (i >> 8)) & 0xff);
      const text = bytesToBase64(bytes);
      assert.equal(text, Buffer.from(bytes).toString("base64"), `encode ${n}`);
      assert.deepEqual(base64ToBytes(text), bytes, `decode ${n}`);
    }
  } finally {
    if (native[0]) Object.defineProperty(Uint8Array.prototype, "toBase64", native[0]);
    if (native[1]) Object.defineProperty(Uint8Array, "fromBase64", native[1]);
  }
});
