// IndexedDB adapter: one object store ("entries"), the key array itself as
// the IndexedDB key, the bytes as a Uint8Array value (structured clone copies
// them on put and on every read).
//
// Prefix ranges: array keys compare element by element and a shorter array
// that is a prefix sorts first; an array sorts after every string. So the keys
// starting with the segments of `prefix` are exactly those in
// [prefix, [...prefix, []]): every such key has a string where the bound
// has `[]`. Keys hold only strings, so nothing else can fall in the range.
//
// Every operation is one transaction and settles on the transaction's
// complete / error / abort events, not on the request's: a save resolves
// only once its transaction has committed. Writes ask for "strict" durability
// (flushed to disk before "complete"): Chromium (since 121), Firefox and
// Safari default to "relaxed", which survives a tab crash but not a power cut.
// Errors become MemoryError STORAGE_ERROR (QuotaExceededError: STORAGE_QUOTA).
import { checkKey, copyBytes, toMemoryError } from "./storage-shared.js";
import { memoryError } from "../internal/errors.js";

const STORE = "entries";

/**
 * @param {string} [dbName] the database (one per namespace group; created on first use)
 * @returns {import("../storage.js").StorageAdapter}
 */
export function indexedDBStorage(dbName = "agent-memory") {
  if (typeof dbName !== "string") throw memoryError("INVALID_INPUT", "indexedDBStorage(dbName) needs a string");
  /** @type {Promise<IDBDatabase> | undefined} */
  let opening;
  /** @type {IDBDatabase | undefined} */
  let current;

  const open = () => {
    opening ??= new Promise((resolve, reject) => {
      const idb = globalThis.indexedDB;
      if (!idb) return reject(memoryError("STORAGE_ERROR", "indexedDB is not available in this runtime"));
      const req = idb.open(dbName, 1);
      req.onupgradeneeded = () => {
        if (!req.result.objectStoreNames.contains(STORE)) req.result.createObjectStore(STORE);
      };
      req.onsuccess = () => {
        const db = req.result;
        // Another tab deleting or upgrading the database must not wait on us: close, reopen on next use.
        db.onversionchange = () => forget(db);
        db.onclose = () => forget(db);
        current = db;
        resolve(db);
      };
      req.onerror = () => reject(req.error);
      // "blocked" is not a failure: the open proceeds once older connections close.
    });
    opening.catch(() => (opening = undefined)); // a failed open is retried next time
    return opening;
  };
  // Drops a connection; only the current one's promise (a newer open may be under way).
  const forget = (db) => {
    db.close();
    if (current === db) {
      current = undefined;
      opening = undefined;
    }
  };

  // Checks the key, runs `fn(store)` in a fresh transaction, and once that
  // transaction has completed returns what the getter `fn` handed back yields.
  const run = async (what, mode, key, isPrefix, fn) => {
    try {
      checkKey(key, isPrefix);
      let tx;
      for (let attempt = 0; ; attempt++) {
        const db = await open();
        try {
          tx = db.transaction(STORE, mode, mode === "readwrite" ? { durability: "strict" } : undefined);
          break;
        } catch (e) {
          // InvalidStateError: the connection was closed (versionchange) after we fetched it.
          if (e?.name !== "InvalidStateError" || attempt >= 2) throw e;
          forget(db);
        }
      }
      const result = fn(tx.objectStore(STORE));
      await new Promise((resolve, reject) => {
        tx.oncomplete = () => resolve();
        // The failing request's error (tx.error is only set once the abort happens).
        tx.onerror = (event) => reject(event.target?.error ?? tx.error);
        tx.onabort = () => reject(tx.error ?? memoryError("STORAGE_ERROR", "IndexedDB transaction aborted"));
      });
      return result();
    } catch (e) {
      throw toMemoryError(e, `indexedDBStorage ${what}`);
    }
  };

  const range = (prefix) => (prefix.length === 0 ? undefined : IDBKeyRange.bound(prefix, [...prefix, []]));

  return {
    load: (key) =>
      run("load", "readonly", key, false, (store) => {
        const req = store.get(key);
        return () => (req.result === undefined ? undefined : asBytes(req.result));
      }),
    save: (key, data) =>
      run("save", "readwrite", key, false, (store) => {
        store.put(copyBytes(data), key); // the copy stores only the view's bytes, not its whole buffer
        return () => undefined;
      }),
    remove: (key) =>
      run("remove", "readwrite", key, false, (store) => {
        store.delete(key);
        return () => undefined;
      }),
    loadRange: (prefix) =>
      run("loadRange", "readonly", prefix, true, (store) => {
        // Both lists come in key order from one transaction, so they pair up index by index.
        const keys = store.getAllKeys(range(prefix));
        const values = store.getAll(range(prefix));
        return () => keys.result.map((key, i) => ({ key, data: asBytes(values.result[i]) }));
      }),
    removeRange: (prefix) =>
      run("removeRange", "readwrite", prefix, true, (store) => {
        if (prefix.length === 0) store.clear();
        else store.delete(range(prefix));
        return () => undefined;
      }),
  };
}

// A value written by another program under our store name may not be bytes.
function asBytes(value) {
  if (value instanceof Uint8Array) return value;
  throw memoryError("STORAGE_ERROR", `IndexedDB value is ${Object.prototype.toString.call(value)}, expected Uint8Array`);
}
