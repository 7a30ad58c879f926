// Terminal demo on embedded defaults: in-memory storage, offline extractive
// summaries, no API key. Replays a scripted Chinese/English conversation with
// tool calls through a MemoryController and shows what the model would see.
import { readFileSync } from "node:fs";
import { MemoryController } from "../dist/node.js";

const script = JSON.parse(readFileSync(new URL("../tests/fixtures/conversation/script.json", import.meta.url), "utf8"));
const bold = (s) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
const dim = (s) => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s);

const memory = await MemoryController.create({
  namespace: "demo",
  model: "gpt-4o-mini",
  workingMemory: { maxTokens: 1500, compressionThreshold: 0.8, targetRatio: 0.5 },
});

console.log(bold(`Replaying ${script.length} messages (model gpt-4o-mini, working memory 1500 tokens)\n`));
let turn = 0;
for (const message of script) {
  const { id, tokens, compaction } = await memory.add(message);
  turn++;
  if (compaction) {
    console.log(
      `  #${String(turn).padStart(3)} ${id.padEnd(5)} +${String(tokens).padStart(4)} tok  ` +
        bold(`compaction → ${compaction.episodeId}`) +
        `: ${compaction.messages} messages archived, working ${compaction.tokensBefore} → ${compaction.tokensAfter} tokens`,
    );
  }
  // Pretend each assistant reply was billed: prompt = the context we would have sent.
  if (message.role === "assistant" && typeof message.content === "string") {
    const ctx = await memory.buildContext({ maxTokens: 2500, reserveOutput: 500 });
    await memory.recordUsage({ promptTokens: ctx.tokens, completionTokens: memory.countTokens(message.content) });
  }
}

const ctx = await memory.buildContext({ maxTokens: 2500, reserveOutput: 500 });
const s = ctx.sections;
console.log(
  bold("\nFinal context") + ` — ${ctx.messages.length} messages, ${ctx.tokens} tokens (budget ${s.budget.available} = 2500 − 500 reserved)`,
);
console.log(`  system    ${String(s.system.tokens).padStart(5)} tokens  ${s.system.messages} pinned message(s)`);
console.log(
  `  summary   ${String(s.summary.tokens).padStart(5)} tokens  ${s.summary.episodeIds.length} episode(s) shown, ${s.summary.hiddenMessages} earlier messages not shown`,
);
console.log(
  `  recent    ${String(s.recent.tokens).padStart(5)} tokens  ${s.recent.messageIds.length} messages (${s.recent.messageIds[0]} … ${s.recent.messageIds.at(-1)})`,
);
console.log(`  overhead  ${String(s.overhead).padStart(5)} tokens  reply priming`);
for (const o of s.omitted) console.log(dim(`  left out: ${o.messages} messages ${o.firstId}…${o.lastId} (${o.reason})`));
console.log(`  recount   ${String(memory.countMessages(ctx.messages)).padStart(5)} tokens  (countMessages of the returned messages)`);

console.log(bold("\nMessages the model sees:"));
for (const m of ctx.messages) {
  const text =
    typeof m.content === "string"
      ? m.content
      : m.tool_calls
        ? `→ ${m.tool_calls.map((c) => `${c.function.name}(${c.function.arguments})`).join(", ")}`
        : JSON.stringify(m.content);
  const lines = text.split("\n");
  const shown = lines.slice(0, m.role === "system" ? 14 : 2).join("\n           ");
  console.log(`  ${m.role.padEnd(10)}${shown}${lines.length > (m.role === "system" ? 14 : 2) ? dim(" …") : ""}`);
}

const st = memory.stats();
const history = await memory.history();
console.log(bold("\nStats"));
console.log(
  `  messages: ${st.messages.total} total = ${st.messages.pinned} pinned + ${st.messages.working} working + ${st.messages.archived} archived; history() returns ${history.length}`,
);
console.log(
  `  tokens:   pinned ${st.tokens.pinned}, working ${st.tokens.working}/${st.tokens.workingLimit}, archived ${st.tokens.archived}, episodes ${st.tokens.episodes} (${st.episodes} episodes)`,
);
console.log(
  `  cost:     $${st.cost.usd.toFixed(6)} over ${st.cost.byModel.reduce((n, m) => n + m.calls, 0)} simulated calls (${st.tokenizer.encoding}, exact)`,
);
console.log(`  budget:   $0.01 left buys at most ${memory.budgetAwareMaxTokens(0.01)} output tokens on the next call`);
