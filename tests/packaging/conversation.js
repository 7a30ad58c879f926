// The conversation every consumer project runs through the installed
// package (copied next to each consumer's entry). Deterministic — fixed
// clock, no randomness in what is reported — so the Node, browser and workerd
// runs must report exactly the same numbers. Message ids are left out: they
// carry a random per-instance prefix.
//
// `report` is what each consumer prints or serves: the conversation, and the
// export names of every subpath in the package's `exports` (subpaths.js, which
// the test writes into each consumer from the installed package.json).
const SAMPLES = [
  "Hello, world! How are you today?",
  "我们明天去成都，记得我花生过敏。",
  "東京の天気は晴れです。서울은 비가 와요.",
  'fn main() { println!("{}", 40 + 2); }',
  '{"city":"重庆","unit":"C","days":[1,2,3]}',
  "emoji 🙂👍🏽 and odd   spacing\t\ttabs\n\nnew lines <|endoftext|>",
];

const TURNS = [
  { role: "system", content: "You are a travel assistant. 回答要简洁。" },
  { role: "user", content: "明天成都天气怎么样？I also need a hotel near 春熙路." },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"成都"}' } },
      { id: "call_2", type: "function", function: { name: "hotels", arguments: '{"near":"春熙路"}' } },
    ],
  },
  { role: "tool", tool_call_id: "call_1", content: '{"temp":21,"sky":"多云"}' },
  { role: "tool", tool_call_id: "call_2", content: '[{"name":"Chunxi Inn","price":420}]' },
  { role: "assistant", content: "明天成都 21°C 多云。Chunxi Inn is 420 yuan a night, five minutes from 春熙路." },
];

/**
 * `{ conversation, exports }`. `options.ready` goes to `ready()` (a host's
 * `wasm`), `options.create` to every `create` (a host's `ranks`).
 */
export async function report(modules, options = {}) {
  const exports = {};
  for (const [subpath, module] of Object.entries(modules)) exports[subpath] = Object.keys(module).sort();
  return { conversation: await runConversation(modules["."], options), exports };
}

/** One line naming a failure, for a page or a response body. */
export function describeError(e) {
  return `${e?.name}: ${e?.code ?? ""} ${e?.message ?? e}\n${e?.stack ?? ""}`;
}

// The module loads on first use: before that, the sync classes refuse with
// NOT_READY and no wasm memory exists; after `ready()` they work.
function readiness({ ready, wasmMemoryBytes, Bm25Index }, options) {
  let before;
  try {
    new Bm25Index();
    before = "constructed";
  } catch (e) {
    before = e.code;
  }
  const bytesBefore = wasmMemoryBytes();
  return ready(options.ready).then((value) => {
    const index = new Bm25Index();
    SAMPLES.forEach((s, i) => index.add(i, s));
    return { before, bytesBefore, value: value ?? null, hits: [...index.search("成都 hotel 明天", 3).ids] };
  });
}

async function runConversation(api, options) {
  const { MemoryController, fromModelMessages } = api;
  const ready = await readiness(api, options);
  let now = Date.UTC(2026, 3, 1, 9, 0, 0);
  const clock = () => (now += 60_000);
  const memory = await MemoryController.create({
    namespace: "consumer",
    model: "gpt-4o",
    workingMemory: { maxTokens: 300 },
    clock,
    ...options.create,
  });
  const adds = [];
  for (const m of TURNS) adds.push((await memory.add(m)).tokens);
  // Vercel AI SDK shapes go through the package's mapping first.
  const aiTurns = [
    { role: "user", content: [{ type: "text", text: "Remember: I am allergic to peanuts. 我对花生过敏。" }] },
    { role: "assistant", content: [{ type: "text", text: "Noted — no peanuts. 已记住。" }] },
  ];
  for (const m of fromModelMessages(aiTurns)) adds.push((await memory.add(m)).tokens);
  let compactions = 0;
  for (let i = 0; i < 16; i++) {
    const r = await memory.add({
      role: i % 2 ? "assistant" : "user",
      content: `第${i}天：宽窄巷子、人民公园和锦里，预算 ${300 + i} 元。Day ${i} plan.`,
    });
    adds.push(r.tokens);
    if (r.compaction) compactions++;
  }
  await memory.remember({ key: "diet", text: "The user is allergic to peanuts (花生过敏)", kind: "preference" });
  await memory.remember({ key: "home", text: "The user lives in Shanghai" });
  const hits = await memory.search("peanuts allergy 花生", { k: 3 });
  const ctx = await memory.buildContext({ maxTokens: 700, reserveOutput: 100, query: "where does the user live" });
  const gpt4 = await MemoryController.create({ model: "gpt-4", ...options.create }); // loads the cl100k_base asset too
  const stats = memory.stats();
  const blank = (v) => JSON.parse(JSON.stringify(v).replace(/\b([a-z])-[0-9a-z]{6,}-(\d+)\b/g, "$1-WRITER-$2"));
  return {
    ready,
    adds,
    compactions,
    countTokens: SAMPLES.map((s) => memory.countTokens(s)),
    countTokensCl100k: SAMPLES.map((s) => gpt4.countTokens(s)),
    countMessages: memory.countMessages(TURNS),
    search: hits.map((h) => ({ kind: h.kind, text: h.text })),
    context: {
      exact: ctx.tokens === memory.countMessages(ctx.messages, ctx.tools),
      withinBudget: ctx.tokens <= 600,
      messages: blank(ctx.messages),
      tokensWithoutWriter: memory.countMessages(blank(ctx.messages), ctx.tools),
      hidden: ctx.sections.summary.hiddenMessages,
    },
    stats: { messages: stats.messages, tokens: stats.tokens, episodes: stats.episodes },
  };
}

export { SAMPLES };
