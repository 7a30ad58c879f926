// A streaming reader of one top-level JSON array: yields its elements one at
// a time, each parsed by JSON.parse, holding only the element being read
// (so a 500 MB conversations.json is read in the memory of its largest
// conversation). Hand-written: it tracks string, escape and nesting depth
// only to find where each element ends; JSON.parse checks the rest.
//
// Input: a string, a Uint8Array, a web ReadableStream, or a (sync or async)
// iterable of string / Uint8Array chunks (a Node Readable is one). Bytes are
// decoded as UTF-8 across chunk boundaries. A top-level object (one
// conversation, not an array) yields that object.

import { memoryError } from "./errors.js";

const QUOTE = 34,
  BACKSLASH = 92,
  OPEN_BRACE = 123,
  CLOSE_BRACE = 125,
  OPEN_BRACKET = 91,
  CLOSE_BRACKET = 93,
  COMMA = 44;
const isSpace = (c) => c === 32 || c === 10 || c === 13 || c === 9 || c === 0xfeff;

/** The text chunks of `source`, decoded. */
export async function* textChunks(source) {
  if (typeof source === "string") {
    yield source;
    return;
  }
  const decoder = new TextDecoder("utf-8");
  const text = (chunk) => {
    if (typeof chunk === "string") return chunk;
    if (chunk instanceof Uint8Array) return decoder.decode(chunk, { stream: true });
    if (chunk instanceof ArrayBuffer) return decoder.decode(new Uint8Array(chunk), { stream: true });
    throw memoryError(
      "INVALID_INPUT",
      `import: a chunk of the input is ${Object.prototype.toString.call(chunk)}, expected a string or Uint8Array`,
    );
  };
  if (source instanceof Uint8Array || source instanceof ArrayBuffer) {
    yield text(source);
  } else if (typeof source?.getReader === "function") {
    // A web ReadableStream (Safari's has no async iterator).
    const reader = source.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        yield text(value);
      }
    } finally {
      reader.releaseLock();
    }
  } else {
    for await (const chunk of source) yield text(chunk);
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

/**
 * The elements of the JSON array `source` holds, in order. A syntax error
 * is a MemoryError INVALID_INPUT naming the element (0-based) and the
 * offset in characters; the elements before it were yielded.
 */
export async function* jsonArrayElements(source) {
  // begin: before the top level; first: after "["; next: after ","; between:
  // after an element; element: inside one; end: after the top level.
  let state = "begin";
  let depth = 0,
    inString = false,
    escaped = false,
    topObject = false;
  let buf = ""; // the current element's text read so far
  let index = 0,
    offset = 0;
  const fail = (what) => memoryError("INVALID_INPUT", `import: ${what} (element ${index}, character ${offset})`);
  const found = (c) => `found "${String.fromCharCode(c)}"`;
  const parse = (text) => {
    try {
      return JSON.parse(text);
    } catch (e) {
      throw memoryError("INVALID_INPUT", `import: element ${index} is not valid JSON: ${e.message}`, e);
    }
  };
  for await (const chunk of textChunks(source)) {
    let from = 0; // where the current element's text starts in this chunk
    for (let i = 0; i < chunk.length; i++, offset++) {
      const c = chunk.charCodeAt(i);
      if (state === "element") {
        if (inString) {
          if (escaped) escaped = false;
          else if (c === BACKSLASH) escaped = true;
          else if (c === QUOTE) inString = false;
        } else if (c === QUOTE) inString = true;
        else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
        else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && depth > 0) {
          if (--depth > 0) continue;
          buf += chunk.slice(from, i + 1); // the closing brace ends the element
          yield parse(buf);
          buf = "";
          index++;
          state = topObject ? "end" : "between";
        } else if (depth === 0 && (c === COMMA || c === CLOSE_BRACKET || isSpace(c))) {
          buf += chunk.slice(from, i); // a scalar element ends before this character
          yield parse(buf);
          buf = "";
          index++;
          state = c === COMMA ? "next" : c === CLOSE_BRACKET ? "end" : "between";
        } else if (depth === 0 && c === CLOSE_BRACE) throw fail(`unexpected "}"`);
        continue;
      }
      if (isSpace(c)) continue;
      if (state === "end") throw fail("text after the end of the array");
      if (state === "begin") {
        if (c === OPEN_BRACKET) state = "first";
        else if (c === OPEN_BRACE)
          [state, topObject, depth, from] = ["element", true, 1, i]; // one conversation, not an array
        else throw fail(`expected "[" or "{" at the start, ${found(c)}`);
        continue;
      }
      if (state === "between") {
        if (c === COMMA) state = "next";
        else if (c === CLOSE_BRACKET) state = "end";
        else throw fail(`expected "," or "]", ${found(c)}`);
        continue;
      }
      if (c === CLOSE_BRACKET && state === "first") {
        state = "end";
        continue;
      }
      if (c === COMMA || c === CLOSE_BRACKET || c === CLOSE_BRACE) throw fail(`expected an element, ${found(c)}`);
      [state, from, depth] = ["element", i, c === OPEN_BRACE || c === OPEN_BRACKET ? 1 : 0];
      inString = c === QUOTE;
    }
    if (state === "element") buf += chunk.slice(from);
  }
  if (state !== "end") throw fail(state === "begin" ? "the input is empty" : "the input ends before the array does");
}
