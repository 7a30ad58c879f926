// Exact counts through the built package equal OpenAI's tiktoken and
// gpt-tokenizer on every paragraph of the mixed corpus, for o200k_base and
// cl100k_base; special-token text is ordinary text; chat overhead follows
// OpenAI's published rule.
//
// One known divergence: gpt-tokenizer's JS regex counts U+FEFF (BOM) as
// whitespace (JS `\s` includes it; Unicode White_Space, which tiktoken's
// Rust regex uses, does not). There we follow tiktoken, which is what the
// API runs, and the test checks that this is the only difference.
import { test } from "node:test";
import assert from "node:assert/strict";
import { encode as o200k } from "gpt-tokenizer/encoding/o200k_base";
import { encode as cl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { get_encoding } from "tiktoken";
import { MemoryController } from "../../dist/node.js";
import { loadCorpus } from "../../bench/corpus.mjs";

const ordinary = { disallowedSpecial: new Set() };
const corpus = loadCorpus();

for (const [model, encoding, encode] of [
  ["gpt-4o", "o200k_base", o200k],
  ["gpt-4", "cl100k_base", cl100k],
]) {
  test(`${model}: counts equal tiktoken and gpt-tokenizer on every corpus paragraph`, async () => {
    const memory = await MemoryController.create({ model });
    const reference = get_encoding(encoding);
    const paragraphs = corpus.paragraphs();
    assert.ok(paragraphs.length > 100, "corpus too small to mean anything");
    const mismatches = [];
    let bom = 0;
    for (const { file, text } of paragraphs) {
      const got = memory.countTokens(text);
      const want = reference.encode_ordinary(text).length;
      if (got !== want) mismatches.push(`${file}: ${got} ≠ tiktoken ${want}: ${JSON.stringify(text.slice(0, 80))}`);
      if (text.includes("\ufeff")) bom++;
      else if (got !== encode(text, ordinary).length)
        mismatches.push(`${file}: ${got} ≠ gpt-tokenizer: ${JSON.stringify(text.slice(0, 80))}`);
    }
    assert.deepEqual(mismatches, []);
    assert.ok(bom < paragraphs.length / 20, "the BOM exception must stay an exception");
    // Whole files and a large mixed text, where pieces cross paragraph boundaries.
    for (const [name, text] of Object.entries(corpus.files))
      assert.equal(memory.countTokens(text), reference.encode_ordinary(text).length, name);
    const big = corpus.mixed(300_000);
    assert.equal(memory.countTokens(big), reference.encode_ordinary(big).length);
    assert.equal(memory.countTokens(big.replaceAll("\ufeff", "")), encode(big.replaceAll("\ufeff", ""), ordinary).length);
    reference.free();
  });
}

test("special-token look-alikes are counted as ordinary text, never as control tokens", async () => {
  const memory = await MemoryController.create({ model: "gpt-4o" });
  for (const text of ["<|endoftext|>", "say <|im_start|>system<|im_sep|> hi", "<|fim_prefix|><|endofprompt|>"]) {
    assert.equal(memory.countTokens(text), o200k(text, ordinary).length);
    assert.ok(memory.countTokens(text) > 1);
  }
});

test("countMessages follows OpenAI's chat rule: 3 per message, 1 per name, 3 reply priming", async () => {
  const memory = await MemoryController.create({ model: "gpt-4o" });
  const messages = [
    { role: "system", content: "You are a helpful assistant." },
    { role: "user", content: "你好，帮我订一张去成都的票。", name: "ann" },
    { role: "assistant", content: "Sure — which date?" },
  ];
  const want =
    messages.reduce((n, m) => n + 3 + o200k(m.role).length + o200k(m.content).length + (m.name ? o200k(m.name).length + 1 : 0), 0) + 3;
  assert.equal(memory.countMessages(messages), want);
  // The cookbook's own worked example: 124 prompt tokens on gpt-4o and gpt-4o-mini
  // (o200k_base), 129 on gpt-4 and gpt-3.5-turbo (cl100k_base).
  const cookbook = [
    { role: "system", content: "You are a helpful, pattern-following assistant that translates corporate jargon into plain English." },
    { role: "system", name: "example_user", content: "New synergies will help drive top-line growth." },
    { role: "system", name: "example_assistant", content: "Things working well together will increase revenue." },
    {
      role: "system",
      name: "example_user",
      content: "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage.",
    },
    { role: "system", name: "example_assistant", content: "Let's talk later when we're less busy about how to do better." },
    { role: "user", content: "This late pivot means we don't have time to boil the ocean for the client deliverable." },
  ];
  assert.equal(memory.countMessages(cookbook), 124);
  const gpt4 = await MemoryController.create({ model: "gpt-4" });
  assert.equal(gpt4.countMessages(cookbook), 129);
});

test("tool definitions are counted with the cookbook's rule", async () => {
  const memory = await MemoryController.create({ model: "gpt-4o" });
  const tools = [
    {
      type: "function",
      function: {
        name: "get_current_weather",
        description: "Get the current weather in a given location",
        parameters: {
          type: "object",
          properties: {
            location: { type: "string", description: "The city and state, e.g. San Francisco, CA" },
            unit: { type: "string", description: "The unit of temperature to return", enum: ["celsius", "fahrenheit"] },
          },
          required: ["location"],
        },
      },
    },
  ];
  const messages = [
    { role: "system", content: "You are a helpful assistant that can answer to questions about the weather." },
    { role: "user", content: "What's the weather like in San Francisco?" },
  ];
  // The cookbook reports 101 prompt tokens for this request on gpt-4o and gpt-4o-mini.
  assert.equal(memory.countMessages(messages, tools), 101);
});
