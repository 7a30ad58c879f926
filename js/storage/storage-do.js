// Durable Object storage adapter (ctx.storage, either backend): entries are
// named encodeKey(key) ("ns/log/42/"), so `list({ prefix })` is a prefix range.
//
// Values: a KV-backed Durable Object stores at most 128 KiB per value (the
// SQLite backend 2 MB key + value), so a value above CHUNK bytes is split:
// the entry at the key's name holds { chunks, bytes } and the pieces sit at
// name + "\u0001" + index (encoded keys never contain control characters, so
// no key can collide with a piece, and the pieces stay inside the key's
// prefix ranges). Small values are stored directly as a Uint8Array.
//
// Atomicity: writes issued with no `await` between them are committed as one
// atomic batch by the runtime, so a save's pieces, manifest and stale-piece
// deletions land together. A save must first read the old manifest (to delete
// pieces a shorter value no longer uses); read-then-write is made atomic by
// running every mutating or multi-read operation of one storage object in
// order through a queue shared by all adapters over that object. A single-key
// load is one `list` call, a consistent snapshot on its own.
// Limits: key names ≤ 2048 bytes of UTF-8 (minus 5 for piece suffixes);
// longer keys fail with STORAGE_KEY_TOO_LONG.
import { checkKey, copyBytes, decodeKey, encodeKey, guard, utf8Length } from "./storage-shared.js";
import { memoryError } from "../internal/errors.js";

// 1 KiB below the 128 KiB limit: the limit counts V8's serialization header too.
export const DO_CHUNK_BYTES = 127 * 1024;
const MAX_KEY_BYTES = 2048 - 5;
const BATCH = 128; // keys per put / delete / get call allowed by the API
const PAGE = 128; // entries per list page: ≤ 16 MiB of values in memory at once
const PIECE = "\u0001";
const AFTER_PIECES = "\u0002";

const queues = new WeakMap();
// Runs `fn` after every operation queued before it on this storage object.
function serial(storage, fn) {
  const run = (queues.get(storage) ?? Promise.resolve()).then(fn);
  queues.set(
    storage,
    run.catch(() => {}),
  );
  return run;
}

const pieceName = (name, i) => name + PIECE + i.toString(16).padStart(4, "0");
const isManifest = (v) => v !== null && typeof v === "object" && !(v instanceof Uint8Array) && Number.isInteger(v.chunks);
const batches = (items) => Array.from({ length: Math.ceil(items.length / BATCH) }, (_, i) => items.slice(i * BATCH, (i + 1) * BATCH));

/**
 * @param {DurableObjectStorage} storage `ctx.storage` of a Durable Object
 * @returns {import("../storage.js").StorageAdapter}
 */
export function durableObjectStorage(storage) {
  if (!storage || typeof storage.get !== "function" || typeof storage.list !== "function") {
    throw memoryError("INVALID_INPUT", "durableObjectStorage(storage) needs ctx.storage of a Durable Object");
  }
  const name = (key) => {
    const n = encodeKey(key);
    const bytes = utf8Length(n);
    if (bytes > MAX_KEY_BYTES)
      throw memoryError("STORAGE_KEY_TOO_LONG", `key encodes to ${bytes} bytes, Durable Object storage allows ${MAX_KEY_BYTES}`);
    return n;
  };
  const guarded = guard("durableObjectStorage");
  // The old manifest's piece names from `first` on: what a write must delete.
  const oldPieces = async (n, first) => {
    const old = await storage.get(n);
    return isManifest(old) ? Array.from({ length: Math.max(0, old.chunks - first) }, (_, i) => pieceName(n, first + i)) : [];
  };

  return {
    load: guarded("load", async (key) => {
      checkKey(key);
      const n = name(key);
      return assemble(n, await storage.list({ start: n, end: n + AFTER_PIECES }));
    }),
    save: guarded("save", async (key, data) => {
      checkKey(key);
      const n = name(key);
      const bytes = copyBytes(data); // queued: the caller may reuse its array before we run
      return serial(storage, async () => {
        const entries = [];
        let count = 0;
        if (bytes.length <= DO_CHUNK_BYTES) {
          entries.push([n, bytes]);
        } else {
          count = Math.ceil(bytes.length / DO_CHUNK_BYTES);
          entries.push([n, { chunks: count, bytes: bytes.length }]);
          // slice, not subarray: structured clone of a view stores its whole buffer.
          for (let i = 0; i < count; i++) entries.push([pieceName(n, i), bytes.slice(i * DO_CHUNK_BYTES, (i + 1) * DO_CHUNK_BYTES)]);
        }
        const stale = await oldPieces(n, count);
        // No await between these calls: the runtime commits them as one batch.
        const writes = batches(entries).map((b) => storage.put(Object.fromEntries(b)));
        const deletes = batches(stale).map((b) => storage.delete(b));
        await Promise.all([...writes, ...deletes]);
      });
    }),
    remove: guarded("remove", async (key) => {
      checkKey(key);
      const n = name(key);
      return serial(storage, async () => {
        const names = [n, ...(await oldPieces(n, 0))];
        await Promise.all(batches(names).map((b) => storage.delete(b)));
      });
    }),
    loadRange: guarded("loadRange", async (prefix) => {
      checkKey(prefix, true);
      return serial(storage, async () => {
        const entries = await listAll(storage, encodeKey(prefix));
        const out = [];
        for (const n of entries.keys()) {
          if (n.includes(PIECE) || !n.endsWith("/")) continue; // pieces, or entries this adapter did not write
          out.push({ key: decodeKey(n), data: assemble(n, entries) });
        }
        return out;
      });
    }),
    removeRange: guarded("removeRange", async (prefix) => {
      checkKey(prefix, true);
      return serial(storage, async () => {
        const names = [...(await listAll(storage, encodeKey(prefix))).keys()].filter((n) => n.split(PIECE)[0].endsWith("/"));
        // One batch of deletes with no await between: the whole range goes at once.
        await Promise.all(batches(names).map((b) => storage.delete(b)));
      });
    }),
  };
}

// Every entry whose name starts with `prefix`, page by page.
async function listAll(storage, prefix) {
  const all = new Map();
  let startAfter;
  for (;;) {
    const page = await storage.list(startAfter === undefined ? { prefix, limit: PAGE } : { prefix, startAfter, limit: PAGE });
    for (const [k, v] of page) all.set(k, v);
    if (page.size < PAGE) return all;
    startAfter = [...page.keys()].pop();
  }
}

// The value stored under `n`, from a map that holds its entry and pieces.
function assemble(n, entries) {
  const head = entries.get(n);
  if (head === undefined) return undefined;
  if (head instanceof Uint8Array) return head.slice();
  if (!isManifest(head)) throw memoryError("STORAGE_ERROR", `Durable Object entry ${JSON.stringify(n)} is not bytes`);
  const out = new Uint8Array(head.bytes);
  let offset = 0;
  for (let i = 0; i < head.chunks; i++) {
    const piece = entries.get(pieceName(n, i));
    if (!(piece instanceof Uint8Array) || offset + piece.length > out.length) {
      throw memoryError("STORAGE_ERROR", `Durable Object entry ${JSON.stringify(n)}: piece ${i} of ${head.chunks} is missing or too long`);
    }
    out.set(piece, offset);
    offset += piece.length;
  }
  if (offset !== out.length)
    throw memoryError("STORAGE_ERROR", `Durable Object entry ${JSON.stringify(n)}: pieces hold ${offset} of ${head.bytes} bytes`);
  return out;
}
