// How 0.1.0's adapters laid stored values out in each backend (see
// `git show 78b1cb9:js/storage-<adapter>.js`), written here as plain backend
// calls so that the fixture lands exactly as 0.1.0 left it whatever today's
// adapters do: if an adapter ever changes its encoding, the upgrade tests
// then show whether it still reads what 0.1.0 wrote. Runs in any runtime; it
// imports nothing.
//
// `entries` are tests/fixtures/v0.1.0/store.json: { key: string[], data: base64 }.
// The fixture's key segments are plain ([A-Za-z0-9_-]), for which 0.1.0's
// encodeKey is the segments each followed by "/"; its values are all below
// the Durable Object piece size, so 0.1.0 stored each as one Uint8Array.

const PLAIN = /^[A-Za-z0-9_-]+$/;
const DO_CHUNK_BYTES = 127 * 1024;

// 0.1.0's encodeKey for keys of plain segments; throws on others rather than guess.
function encodedName(key) {
  if (!key.every((s) => PLAIN.test(s))) throw new Error(`key ${JSON.stringify(key)} needs escaping: restate 0.1.0's encodeKey for it`);
  return key.map((s) => `${s}/`).join("");
}

/** The fixture's base64 as bytes (atob: every runtime here has it). */
export function bytesOf(base64) {
  const binary = atob(base64);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/**
 * nodeFileStorage(dir): each segment but the last a directory, the last a
 * file "<segment>.v" (segments of [a-z0-9_-] stay as they are). `fs` is
 * node:fs/promises, passed in so that this module imports nothing.
 */
export async function toFiles(fs, dir, entries) {
  for (const { key, data } of entries) {
    if (!key.every((s) => /^[a-z0-9_-]+$/.test(s)))
      throw new Error(`key ${JSON.stringify(key)} needs escaping: restate 0.1.0's file names for it`);
    const parent = [dir, ...key.slice(0, -1)].join("/");
    await fs.mkdir(parent, { recursive: true });
    await fs.writeFile(`${parent}/${key.at(-1)}.v`, bytesOf(data));
  }
}

/** localStorageAdapter(prefix): item `${prefix}:${name}`, the value base64. */
export function toLocalStorage(ls, prefix, entries) {
  for (const { key, data } of entries) ls.setItem(`${prefix}:${encodedName(key)}`, data);
}

/** indexedDBStorage(dbName): database version 1, store "entries", the key array as key, a Uint8Array as value. */
export async function toIndexedDB(idb, dbName, entries) {
  const db = await new Promise((resolve, reject) => {
    const req = idb.open(dbName, 1);
    req.onupgradeneeded = () => req.result.createObjectStore("entries");
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  const tx = db.transaction("entries", "readwrite");
  for (const { key, data } of entries) tx.objectStore("entries").put(bytesOf(data), key);
  await new Promise((resolve, reject) => {
    tx.oncomplete = resolve;
    tx.onerror = tx.onabort = () => reject(tx.error);
  });
  db.close();
}

/** cloudflareKVStorage(kv): one entry per key, named encodeKey(key), the raw bytes. */
export async function toKV(kv, entries) {
  for (const { key, data } of entries) await kv.put(encodedName(key), bytesOf(data));
}

/** durableObjectStorage(storage): entry encodeKey(key) → Uint8Array (pieces only above 127 KiB). */
export async function toDurableObject(storage, entries) {
  for (const { key, data } of entries) {
    const bytes = bytesOf(data);
    if (bytes.length > DO_CHUNK_BYTES) throw new Error(`${bytes.length} bytes: 0.1.0 stored this in pieces; restate its manifest for it`);
    await storage.put(encodedName(key), bytes);
  }
}
