// Cloudflare Workers KV adapter: one KV entry per key, named encodeKey(key)
// ("ns/log/42/"), the value the raw bytes.
//
// Consistency: KV is eventually consistent. A write is usually visible at
// once in the location that made it, but other locations may serve the old
// value (or no value, or an old `list`) for up to ~60 s. Two isolates in
// different locations writing the same namespace can therefore miss each
// other's recent records for that long; use Durable Object storage when a
// namespace needs read-your-writes across locations. `list` lags the same
// way, so loadRange / removeRange may miss keys written elsewhere in the
// last minute.
// Limits (Cloudflare, read 2026-04): key names ≤ 512 bytes of UTF-8 (longer
// keys fail with STORAGE_KEY_TOO_LONG here, before any request); values
// ≤ 25 MiB; at most 1 write per second to the same key (faster writes get
// 429 → STORAGE_ERROR; the controller's append-only records use distinct
// keys). Each get / put / delete / list is a KV operation, and Workers cap
// the operations of one invocation (1,000): loadRange costs one list per
// 1,000 keys plus one get per key.
import { checkKey, copyBytes, decodeKey, encodeKey, guard, mapLimit, utf8Length } from "./storage-shared.js";
import { memoryError } from "../internal/errors.js";

export const KV_MAX_KEY_BYTES = 512;
// In-flight KV calls per range operation: Workers allow 6 simultaneous
// connections per invocation and queue the rest, so more buys nothing.
const PARALLEL = 6;

/**
 * @param {KVNamespace} kv a KV namespace binding (env.MY_KV)
 * @returns {import("../storage.js").StorageAdapter}
 */
export function cloudflareKVStorage(kv) {
  if (!kv || typeof kv.get !== "function" || typeof kv.list !== "function") {
    throw memoryError("INVALID_INPUT", "cloudflareKVStorage(kv) needs a KV namespace binding");
  }
  const name = (key) => {
    const n = encodeKey(key);
    const bytes = utf8Length(n);
    if (bytes > KV_MAX_KEY_BYTES) {
      throw memoryError("STORAGE_KEY_TOO_LONG", `key encodes to ${bytes} bytes, Workers KV allows ${KV_MAX_KEY_BYTES}`);
    }
    return n;
  };
  const guarded = guard("cloudflareKVStorage");
  // Every KV name under `prefix`, following list cursors to the end.
  const names = async (prefix) => {
    const p = encodeKey(prefix);
    if (utf8Length(p) > KV_MAX_KEY_BYTES) return []; // no stored key can be that long
    const out = [];
    let cursor;
    do {
      const page = await kv.list({ prefix: p, cursor });
      // Names not ending in "/" were not written by this adapter (a shared namespace).
      for (const k of page.keys) if (k.name.endsWith("/")) out.push(k.name);
      cursor = page.list_complete ? undefined : page.cursor;
    } while (cursor);
    return out;
  };

  return {
    load: guarded("load", async (key) => {
      checkKey(key);
      const buf = await kv.get(name(key), "arrayBuffer");
      return buf === null ? undefined : new Uint8Array(buf);
    }),
    save: guarded("save", async (key, data) => {
      checkKey(key);
      await kv.put(name(key), copyBytes(data));
    }),
    remove: guarded("remove", async (key) => {
      checkKey(key);
      await kv.delete(name(key));
    }),
    loadRange: guarded("loadRange", async (prefix) => {
      checkKey(prefix, true);
      const found = await mapLimit(await names(prefix), PARALLEL, async (n) => {
        const buf = await kv.get(n, "arrayBuffer");
        // Listed but gone (deleted meanwhile, or the list was stale): skip.
        return buf === null ? undefined : { key: decodeKey(n), data: new Uint8Array(buf) };
      });
      return found.filter(Boolean);
    }),
    removeRange: guarded("removeRange", async (prefix) => {
      checkKey(prefix, true);
      await mapLimit(await names(prefix), PARALLEL, (n) => kv.delete(n));
    }),
  };
}
