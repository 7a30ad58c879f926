#!/usr/bin/env node
// Writes tests/fixtures/conversation/script.json from the dialogue in
// dialogue.txt and the tool definitions in tools.json (both hand-written).
//
//   node scripts/gen-conversation.mjs          write script.json, print stats
//   node scripts/gen-conversation.mjs --check  fail if script.json on disk differs
//
// dialogue.txt is a list of blocks. `--- system`, `--- user` and
// `--- assistant` start a message: its text is every line up to the next
// marker, trailing blank lines removed. `--- tools` (or `--- tools: <text>`,
// the assistant's words beside its calls) starts an assistant message with
// tool calls: a JSON array of `{ name, args, result, ascii? }`, one tool
// message following per call. `=== <title>` names a part of the story and
// adds nothing.
//
// This script adds only what is tedious by hand: tool-call ids (from a
// seeded PRNG, so output is identical every run), JSON-encoding of tool
// arguments and results (`ascii`: every non-ASCII character as \uXXXX, as
// Python's json.dumps writes by default), and validation of the result
// (OpenAI chat shape, every tool message answers a call of the assistant
// message right before it, ids unique, arguments match the tool's schema's
// names, every argument/result is valid JSON).
//
// Story: Lin Wei (林薇), a product manager in Shanghai, talks to her assistant
// over a few weeks: preferences first (peanut allergy, bullet points, answer
// Chinese topics in Chinese, not too spicy), then a Chengdu business trip, a
// TypeScript build, a hotpot shopping list, an HSK 4 plan for her partner
// Daniel, an expense report, and finally questions that only make sense if
// the early preferences and facts were remembered, including one preference
// that she changes (language) so the newest value must win.

import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { mulberry32 } from "../bench/corpus.mjs";

const DIR = fileURLToPath(new URL("../tests/fixtures/conversation/", import.meta.url));

const rand = mulberry32(20250417);
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const newCallId = () => "call_" + Array.from({ length: 24 }, () => ALPHABET[Math.floor(rand() * 62)]).join("");

/** JSON with every non-ASCII character as \uXXXX, as Python's json.dumps does by default. */
const asciiJson = (v) => JSON.stringify(v).replace(/[\u0080-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));

const MARKER = /^(?:--- (system|user|assistant|tools)(?:: (.*))?|=== .*)$/;

/** The chat messages dialogue.txt describes, in order. */
function parseDialogue(text) {
  const messages = [];
  let block = null;
  const finish = () => {
    if (!block) return;
    while (block.lines.length && block.lines.at(-1).trim() === "") block.lines.pop();
    const body = block.lines.join("\n");
    if (block.role !== "tools") {
      messages.push({ role: block.role, content: body });
    } else {
      const calls = JSON.parse(body).map((c) => ({ ...c, id: newCallId() }));
      messages.push({
        role: "assistant",
        content: block.words ?? null,
        tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.args) } })),
      });
      for (const c of calls)
        messages.push({ role: "tool", tool_call_id: c.id, content: c.ascii ? asciiJson(c.result) : JSON.stringify(c.result) });
    }
    block = null;
  };
  for (const [n, line] of text.split("\n").entries()) {
    const m = MARKER.exec(line);
    if (m) {
      finish();
      if (m[1]) block = { role: m[1], words: m[2], lines: [] };
    } else if (block) {
      block.lines.push(line);
    } else if (line.trim() !== "") {
      throw new Error(`dialogue.txt:${n + 1}: text outside a block`);
    }
  }
  finish();
  return messages;
}

function validate(msgs, toolDefs) {
  const errors = [];
  const fail = (i, msg) => errors.push(`messages[${i}]: ${msg}`);
  const defs = new Map(toolDefs.map((d) => [d.function.name, d.function.parameters]));
  const ids = new Set();
  let pending = []; // call ids of the last assistant tool-call message not yet answered

  msgs.forEach((m, i) => {
    if (m.role !== "tool" && pending.length) fail(i, `calls ${pending.join(", ")} were never answered`);
    if (m.role !== "tool") pending = [];
    const nonEmpty = typeof m.content === "string" && m.content.trim() !== "";
    switch (m.role) {
      case "system":
        if (i !== 0) fail(i, "system message must come first and only once");
        if (!nonEmpty) fail(i, "empty system message");
        break;
      case "user":
        if (!nonEmpty) fail(i, "empty user message");
        break;
      case "assistant":
        if (!m.tool_calls) {
          if (!nonEmpty) fail(i, "assistant message without content or tool_calls");
          break;
        }
        if (m.content !== null && !nonEmpty) fail(i, "content must be null or text");
        if (!Array.isArray(m.tool_calls) || m.tool_calls.length === 0) fail(i, "tool_calls must be a non-empty array");
        for (const c of m.tool_calls) {
          if (!/^call_[A-Za-z0-9]{24}$/.test(c.id)) fail(i, `bad call id ${c.id}`);
          if (ids.has(c.id)) fail(i, `duplicate call id ${c.id}`);
          ids.add(c.id);
          if (c.type !== "function") fail(i, `call ${c.id}: type must be "function"`);
          const params = defs.get(c.function?.name);
          if (!params) {
            fail(i, `call ${c.id}: unknown tool ${c.function?.name}`);
            continue;
          }
          let args;
          try {
            args = JSON.parse(c.function.arguments);
          } catch (e) {
            fail(i, `call ${c.id}: arguments are not JSON (${e.message})`);
            continue;
          }
          for (const key of params.required) if (!(key in args)) fail(i, `call ${c.id}: missing argument ${key}`);
          for (const key of Object.keys(args)) if (!(key in params.properties)) fail(i, `call ${c.id}: unknown argument ${key}`);
          pending.push(c.id);
        }
        break;
      case "tool":
        if (pending[0] !== m.tool_call_id) {
          fail(i, `tool_call_id ${m.tool_call_id} does not answer the next open call of the preceding assistant message`);
        }
        pending.shift();
        try {
          JSON.parse(m.content);
        } catch (e) {
          fail(i, `tool content is not JSON (${e.message})`);
        }
        break;
      default:
        fail(i, `unknown role ${m.role}`);
    }
  });
  if (pending.length) fail(msgs.length - 1, `calls ${pending.join(", ")} were never answered`);
  if (msgs[0]?.role !== "system") errors.push("the first message must be the system message");
  return errors;
}

const tools = JSON.parse(readFileSync(DIR + "tools.json", "utf8"));
const messages = parseDialogue(readFileSync(DIR + "dialogue.txt", "utf8"));
const errors = validate(messages, tools);
if (errors.length) {
  console.error(errors.join("\n"));
  process.exit(1);
}
const output = JSON.stringify(messages, null, 2) + "\n";

if (process.argv.includes("--check")) {
  let onDisk = null;
  try {
    onDisk = readFileSync(DIR + "script.json", "utf8");
  } catch {}
  if (onDisk !== output) {
    console.error("script.json is out of date: run node scripts/gen-conversation.mjs");
    process.exit(1);
  }
  process.exit(0);
}

writeFileSync(DIR + "script.json", output);
const count = (pred) => messages.filter(pred).length;
const callMsgs = messages.filter((m) => m.tool_calls);
const hasCjk = (m) => /[\u3400-\u9fff]/.test(m.content ?? "");
console.log(`wrote ${DIR}script.json (${Buffer.byteLength(output)} bytes) from dialogue.txt and tools.json (${tools.length} tools)`);
console.log(
  `${messages.length} messages: system ${count((m) => m.role === "system")}, user ${count((m) => m.role === "user")}, ` +
    `assistant ${count((m) => m.role === "assistant")} (${callMsgs.length} with tool_calls, ` +
    `${callMsgs.filter((m) => m.tool_calls.length > 1).length} with parallel calls), tool ${count((m) => m.role === "tool")}`,
);
console.log(`user/assistant text messages containing Chinese characters: ${count((m) => m.role !== "tool" && hasCjk(m))}`);
