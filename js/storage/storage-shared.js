// What every storage adapter shares: key checks, the key → string encoding,
// and the MemoryError shape.
//
// Invariants of `encodeKey` (the string stores — memory, localStorage, KV,
// Durable Objects — rely on them):
// - injective: two different keys never encode to the same string;
// - prefix-preserving by whole segments: encodeKey(p) is a string prefix of
//   encodeKey(k) exactly when p's segments are the first segments of k;
// - the output is well-formed Unicode (lone surrogates are escaped), so a
//   store that converts to UTF-8 cannot merge two keys;
// - the output has no control characters, so an adapter may use
//   "\u0000".."\u001f" as private markers after an encoded key.
// Each segment is escaped and then terminated by "/": "/" never occurs inside
// an escaped segment, so the terminators split the string unambiguously.

import { memoryError } from "../internal/errors.js";

/** Maps whatever a backend threw to a MemoryError; quota failures keep their own code. */
export function toMemoryError(e, what) {
  if (e?.name === "MemoryError") return e;
  const quota = e?.name === "QuotaExceededError" || e?.code === "ENOSPC" || e?.code === "EDQUOT";
  return memoryError(quota ? "STORAGE_QUOTA" : "STORAGE_ERROR", `${what}: ${e?.message ?? e}`, e);
}

/** Throws INVALID_INPUT unless `key` is an array of strings (non-empty unless `prefix`). */
/**
 * The adapter `adapter`'s operation guard: `guard(adapter)(what, fn)` is
 * `fn` with every failure turned into a MemoryError naming the adapter and
 * the operation (`translate(e, what)` may name a more precise one first).
 */
export function guard(adapter, translate) {
  return (what, fn) =>
    async (...args) => {
      try {
        return await fn(...args);
      } catch (e) {
        throw translate?.(e, what) ?? toMemoryError(e, `${adapter} ${what}`);
      }
    };
}

export function checkKey(key, prefix = false) {
  if (!Array.isArray(key) || key.some((s) => typeof s !== "string")) {
    throw memoryError("INVALID_INPUT", `storage key must be an array of strings, got ${describe(key)}`);
  }
  if (!prefix && key.length === 0) throw memoryError("INVALID_INPUT", "storage key must have at least one segment");
}

function describe(v) {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** A byte copy the caller cannot alias (also drops the rest of a larger buffer under a view). */
export function copyBytes(data, what = "value") {
  if (!(data instanceof Uint8Array)) throw memoryError("INVALID_INPUT", `storage ${what} must be a Uint8Array, got ${describe(data)}`);
  return data.slice();
}

const HEX = "0123456789ABCDEF";
const utf8 = new TextEncoder();

/**
 * Escapes a string: characters for which `keep(char)` holds stay, every other
 * code point becomes "%XX" per UTF-8 byte, and a lone surrogate (not UTF-8
 * encodable) becomes "%uXXXX". "%" itself is never kept.
 */
export function escapeSegment(s, keep) {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      const d = s.charCodeAt(i + 1);
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        const pair = s.slice(i, i + 2);
        out += keep(pair) ? pair : hexBytes(pair);
        i++;
      } else {
        out += "%u" + c.toString(16).toUpperCase().padStart(4, "0");
      }
      continue;
    }
    const ch = s[i];
    out += ch !== "%" && keep(ch) ? ch : hexBytes(ch);
  }
  return out;
}

function hexBytes(ch) {
  let out = "";
  for (const b of utf8.encode(ch)) out += "%" + HEX[b >> 4] + HEX[b & 15];
  return out;
}

/** Inverse of escapeSegment. Throws on text escapeSegment cannot have produced. */
export function unescapeSegment(s) {
  let out = "";
  const bytes = [];
  const flush = () => {
    if (bytes.length) out += new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(bytes.splice(0)));
  };
  for (let i = 0; i < s.length; ) {
    if (s[i] === "%" && s[i + 1] === "u") {
      flush();
      out += String.fromCharCode(parseInt(s.slice(i + 2, i + 6), 16));
      i += 6;
    } else if (s[i] === "%") {
      const b = parseInt(s.slice(i + 1, i + 3), 16);
      if (Number.isNaN(b)) throw new Error(`bad escape in ${JSON.stringify(s)}`);
      bytes.push(b);
      i += 3;
    } else {
      flush();
      out += s[i++];
    }
  }
  flush();
  return out;
}

// The string stores keep printable text (any script, emoji) as is and escape
// the terminator "/", ":" (localStorage puts it after its namespace), "%" and
// control characters.
const keepPrintable = (ch) => ch !== "/" && ch !== ":" && !/[\u0000-\u001f\u007f]/.test(ch);

/** ["ns","log","42"] → "ns/log/42/"; a prefix encodes the same way. */
export function encodeKey(key) {
  let out = "";
  for (const s of key) out += escapeSegment(s, keepPrintable) + "/";
  return out;
}

/** Inverse of encodeKey. */
export function decodeKey(encoded) {
  const parts = encoded.split("/");
  parts.pop(); // the text after the last terminator is always ""
  return parts.map(unescapeSegment);
}

/** UTF-8 length, for stores whose key limits are in bytes. */
export function utf8Length(s) {
  return utf8.encode(s).length;
}

/** Runs `fn` over `items` with at most `limit` calls in flight; results in order. */
export async function mapLimit(items, limit, fn) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
