// Compiled with `tsc --noEmit` by tests/js/types.test.mjs against the
// generated declarations: the public API must stay typed, not `any`.
import { MemoryController, MemoryError, isMemoryError, redactText, wasmMemoryBytes } from "agent-memory";
import type {
  ChatMessage,
  Consolidated,
  ConsolidationRequest,
  Context,
  ImportResult,
  MemoryErrorCode,
  Stats,
  SummaryRequest,
} from "agent-memory";
import { openAICompatibleSummarizer } from "agent-memory";

async function main(): Promise<void> {
  const memory = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 4000 }, clock: () => Date.now() });
  const added = await memory.add({ role: "user", content: "你好" });
  const id: string = added.id;
  const tokens: number = added.tokens;
  const msg: ChatMessage = {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
  };
  await memory.add(msg);
  const ctx: Context = await memory.buildContext({ maxTokens: 1000, reserveOutput: 200 });
  const recount: number = memory.countMessages(ctx.messages);
  const stats: Stats = memory.stats();
  const usd: number | null = await memory.recordUsage({ promptTokens: ctx.tokens, completionTokens: 10 });
  // Replies and usage as clients return them.
  await memory.add({
    role: "assistant",
    content: "ok",
    refusal: null,
    annotations: [],
    audio: null,
    reasoning_content: "r",
    logprobs: null,
  });
  const priced: number | null = await memory.recordUsage(
    { prompt_tokens: 10, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 0 } },
    { model: "gpt-4o" },
  );
  const unknown: string[] = memory.stats().unknownModels;
  console.log(priced, unknown, (await memory.buildContext({ keepFields: ["annotations"] })).tokens);
  const bytes: number = wasmMemoryBytes();
  // Redaction: the option's three shapes, what add and remember report, redactText.
  const careful = await MemoryController.create({ redact: { personal: true } });
  await MemoryController.create({ redact: false });
  await MemoryController.create({ redact: async (text: string) => redactText(text).text.replace(/EMP-\d+/g, "[redacted:employee-id]") });
  const redacted: number | undefined = (await careful.add({ role: "user", content: "x" })).redacted?.["openai-key"];
  const factRedacted: number | undefined = (await careful.remember({ text: "y" })).redacted?.email;
  const scrubbed: { text: string; redacted: Record<string, number> } = redactText("z", { personal: true });
  const failed: MemoryErrorCode = "REDACT_FAILED";
  const same: string = (await careful.redact("log line")).text;
  console.log(same);
  console.log(redacted, factRedacted, scrubbed, failed);
  // @ts-expect-error: redact takes a boolean, a policy or a function
  await MemoryController.create({ redact: "yes" });
  // @ts-expect-error: the policy's keys are typed
  await MemoryController.create({ redact: { pii: true } });
  console.log(id, tokens, recount, stats.cost.usd, usd, bytes, ctx.sections.recent.messageIds);
  // Retention: ages per kind, what stats() says it removed.
  const kept = await MemoryController.create({
    retention: { messages: { maxAgeMs: 30 * 86_400_000 }, episodes: { maxAgeMs: 7 * 86_400_000 }, maxPerCall: 100 },
  });
  const expired: number = kept.stats().retention.messages + kept.stats().retention.rewritten;
  console.log(expired);
  // @ts-expect-error: a kind is { maxAgeMs }
  await MemoryController.create({ retention: { messages: 1000 } });
  // @ts-expect-error: only messages, episodes and facts have ages
  await MemoryController.create({ retention: { chats: { maxAgeMs: 1000 } } });

  // Imports: the export's text, a stream, or parsed conversations; the result is typed.
  const imported: ImportResult = await memory.importConversations("[]", {
    format: "chatgpt",
    onProgress: (p) => console.log(p.conversation.thread, p.messages),
  });
  const streamed: number = (await memory.importConversations(new ReadableStream<Uint8Array>())).skipped;
  const many: string[] = (await memory.addMany([{ message: { role: "user", content: "hi" }, at: 0 }])).ids;
  console.log(imported.conversations, streamed, many);
  // @ts-expect-error: only the formats it reads
  await memory.importConversations("[]", { format: "gemini" });
  // @ts-expect-error: addMany needs each message's time
  await memory.addMany([{ message: { role: "user", content: "hi" } }]);

  // The summarizer: one written for summaries alone still fits; one that
  // answers both tells them apart by purpose; the built-in fits.
  const summaries = async (request: SummaryRequest) => `${request.messages.length} messages`;
  const both = async (request: SummaryRequest | ConsolidationRequest) =>
    request.purpose === "consolidation"
      ? { merges: [{ ids: request.facts.map((f) => f.id), text: "x" }], profile: "User profile:" }
      : "a summary";
  await MemoryController.create({ summarizer: summaries });
  await MemoryController.create({ summarizer: both });
  await MemoryController.create({
    summarizer: openAICompatibleSummarizer({ baseURL: "http://x", model: "m", consolidationMaxTokens: 1500 }),
  });
  const consolidated: Consolidated = await memory.consolidate();
  const decidedBy: "model" | "fallback" | undefined = consolidated.source;
  const why: string | undefined = consolidated.degraded?.code;
  console.log(decidedBy, why, consolidated.merged, consolidated.profile);
  // @ts-expect-error: a summarizer answers with text or an object
  await MemoryController.create({ summarizer: async () => 42 });

  // @ts-expect-error: an unknown role is a type error
  await memory.add({ role: "robot", content: "x" });
  // @ts-expect-error: content must be a string, parts or null
  await memory.add({ role: "user", content: 42 });
  // @ts-expect-error: contexts have no such option
  await memory.buildContext({ maxTokenz: 10 });
  // @ts-expect-error: the result is typed
  const wrong: string = (await memory.buildContext()).tokens;
  try {
    await memory.add({ role: "tool", tool_call_id: "x", content: "y" });
  } catch (e) {
    // Narrowed without a cast, by the class or by the guard.
    if (e instanceof MemoryError) {
      const code: MemoryErrorCode = e.code;
      console.log(code, wrong);
    }
    if (isMemoryError(e)) {
      // @ts-expect-error: the code is one of the documented ones
      const other: "NO_SUCH_CODE" = e.code;
      console.log(other);
    }
  }
}
void main;
