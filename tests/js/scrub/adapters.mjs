// The Node adapters the scrub tests run on (what must not be stored:
// redact.test.mjs; what must leave storage: retention.test.mjs), each with a
// raw view of what its backend holds, as text: memoryStorage's values,
// nodeFileStorage's files, localStorageAdapter's items over a Web Storage
// object (base64 items decoded too). workerd's (KV, Durable Objects) and
// Chromium's (IndexedDB, localStorage) views: worker.mjs and index.html here.
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryStorage, nodeFileStorage, localStorageAdapter } from "../../../dist/node.js";

async function filesText(dir) {
  const out = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out.push((await readFile(join(e.parentPath ?? e.path, e.name))).toString("utf8"));
  }
  return out.join("\n");
}

// A Web Storage object (what localStorage is), holding strings.
function webStorage() {
  const items = new Map();
  return {
    get length() {
      return items.size;
    },
    key: (i) => [...items.keys()][i] ?? null,
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => void items.set(k, String(v)),
    removeItem: (k) => void items.delete(k),
    raw: () => [...items.values()],
  };
}

/**
 * [name, make(label)]: `make` resolves to { storage, reopen, raw, done }:
 * an adapter, a new adapter over the same data (as a restarted process
 * gets), the backend's content as text, and the cleanup.
 */
export const ADAPTERS = [
  [
    "memoryStorage",
    async () => {
      const storage = memoryStorage();
      const raw = async () => (await storage.loadRange([])).map((e) => e.key.join("/") + Buffer.from(e.data).toString("utf8")).join("\n");
      return { storage, reopen: () => storage, raw, done: async () => {} };
    },
  ],
  [
    "nodeFileStorage",
    async (label) => {
      const dir = await mkdtemp(join(tmpdir(), `am-${label}-`));
      return {
        storage: nodeFileStorage(dir),
        reopen: () => nodeFileStorage(dir),
        raw: () => filesText(dir),
        done: () => rm(dir, { recursive: true, force: true }),
      };
    },
  ],
  [
    "localStorageAdapter",
    async (label) => {
      const ls = webStorage();
      globalThis.localStorage = ls;
      const raw = async () =>
        ls
          .raw()
          .map((v) => v + "\n" + Buffer.from(v, "base64").toString("utf8"))
          .join("\n");
      return {
        storage: localStorageAdapter(label),
        reopen: () => localStorageAdapter(label),
        raw,
        done: async () => {
          delete globalThis.localStorage;
        },
      };
    },
  ],
];
