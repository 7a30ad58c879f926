// The default adapter: a Map in this process, gone when it exits. Entries are
// keyed by the encoded key, so a prefix range is a string-prefix scan; values
// are copied in and out so a caller can never alias what is stored.
import { checkKey, copyBytes, encodeKey, guard } from "./storage-shared.js";

/** @returns {import("../storage.js").StorageAdapter} */
export function memoryStorage() {
  /** @type {Map<string, { key: string[], data: Uint8Array }>} */
  const entries = new Map();
  const matching = (prefix) => {
    const p = encodeKey(prefix);
    return [...entries].filter(([name]) => name.startsWith(p));
  };
  // Async functions, so a bad key rejects rather than throws synchronously.
  const guarded = guard("memoryStorage");
  return {
    load: guarded("load", (key) => {
      checkKey(key);
      return entries.get(encodeKey(key))?.data.slice();
    }),
    save: guarded("save", (key, data) => {
      checkKey(key);
      entries.set(encodeKey(key), { key: [...key], data: copyBytes(data) });
    }),
    remove: guarded("remove", (key) => {
      checkKey(key);
      entries.delete(encodeKey(key));
    }),
    loadRange: guarded("loadRange", (prefix) => {
      checkKey(prefix, true);
      return matching(prefix).map(([, e]) => ({ key: [...e.key], data: e.data.slice() }));
    }),
    removeRange: guarded("removeRange", (prefix) => {
      checkKey(prefix, true);
      for (const [name] of matching(prefix)) entries.delete(name);
    }),
  };
}
