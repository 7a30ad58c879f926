// localStorage adapter: one item per key, named `${prefix}:${encodeKey(key)}`,
// the value base64. ":" is escaped inside encoded keys, so a namespace never
// sees another's items even when one prefix starts with the other ("app" vs
// "app:x"). Each save is one setItem: it lands whole or throws, so a quota
// failure (STORAGE_QUOTA) leaves the previous value of that key in place.
// localStorage is synchronous and shared by the tabs of an origin; each call
// is atomic, so two tabs writing at once cannot tear an item.
// Limits: browsers allow about 5 MB of UTF-16 text per origin (Chromium: 10 MB
// of UTF-16 = 5 M characters); base64 makes 1 MB of bytes 1.33 M characters.
import { checkKey, copyBytes, decodeKey, encodeKey, guard } from "./storage-shared.js";
import { memoryError } from "../internal/errors.js";

const CHUNK = 0x8000; // bytes per String.fromCharCode call, well below argument-count limits

/** Bytes → base64, natively where Uint8Array#toBase64 exists, else in 32 KB chunks. */
export function bytesToBase64(bytes) {
  if (typeof bytes.toBase64 === "function") return bytes.toBase64();
  const parts = [];
  for (let i = 0; i < bytes.length; i += CHUNK) parts.push(String.fromCharCode.apply(null, bytes.subarray(i, i + CHUNK)));
  return btoa(parts.join(""));
}

/** base64 → bytes, natively where Uint8Array.fromBase64 exists. */
export function base64ToBytes(text) {
  if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * @param {string} [prefix] namespace of this adapter's items
 * @returns {import("../storage.js").StorageAdapter}
 */
export function localStorageAdapter(prefix = "agent-memory") {
  if (typeof prefix !== "string") throw memoryError("INVALID_INPUT", "localStorageAdapter(prefix) needs a string prefix");
  const head = `${prefix}:`;
  // Looked up per call: the adapter can be created where localStorage is absent and fail only when used.
  const store = () => {
    const ls = globalThis.localStorage;
    if (!ls) throw memoryError("STORAGE_ERROR", "localStorage is not available in this runtime");
    return ls;
  };
  const names = (keyPrefix) => {
    const ls = store();
    const start = head + encodeKey(keyPrefix);
    const out = [];
    for (let i = 0; i < ls.length; i++) {
      const name = ls.key(i);
      if (name !== null && name.startsWith(start)) out.push(name);
    }
    return out;
  };
  const guarded = guard("localStorageAdapter");

  return {
    load: guarded("load", (key) => {
      checkKey(key);
      const text = store().getItem(head + encodeKey(key));
      return text === null ? undefined : base64ToBytes(text);
    }),
    save: guarded("save", (key, data) => {
      checkKey(key);
      const text = bytesToBase64(copyBytes(data));
      try {
        store().setItem(head + encodeKey(key), text);
      } catch (e) {
        // Browsers differ on the name (Firefox once used NS_ERROR_DOM_QUOTA_REACHED); code 22 is the legacy DOMException code.
        if (e?.name === "QuotaExceededError" || e?.name === "NS_ERROR_DOM_QUOTA_REACHED" || e?.code === 22) {
          throw memoryError("STORAGE_QUOTA", `localStorage is full: saving ${data.length} bytes failed`, e);
        }
        throw e;
      }
    }),
    remove: guarded("remove", (key) => {
      checkKey(key);
      store().removeItem(head + encodeKey(key));
    }),
    loadRange: guarded("loadRange", (keyPrefix) => {
      checkKey(keyPrefix, true);
      const ls = store();
      return names(keyPrefix).flatMap((name) => {
        const text = ls.getItem(name);
        return text === null ? [] : [{ key: decodeKey(name.slice(head.length)), data: base64ToBytes(text) }];
      });
    }),
    removeRange: guarded("removeRange", (keyPrefix) => {
      checkKey(keyPrefix, true);
      const ls = store();
      for (const name of names(keyPrefix)) ls.removeItem(name); // collected first: removing while iterating shifts indices
    }),
  };
}
