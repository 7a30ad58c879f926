// Compiled with `tsc --strict` by tests/js/types-ai-sdk.test.mjs: every
// export of agent-memory/ai-sdk type-checks against the real `ai` 7 types
// (and the middleware against ai 6's), with no casts.
import { convertToModelMessages, generateText, streamText, wrapLanguageModel, isStepCount, tool } from "ai";
import type { LanguageModelMiddleware, ModelMessage, SystemModelMessage, ToolSet, UIMessage } from "ai";
import { generateText as generateText6, wrapLanguageModel as wrapLanguageModel6 } from "ai6";
import type { LanguageModelMiddleware as LanguageModelMiddleware6 } from "ai6";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAI as createOpenAI3 } from "ai-sdk-openai3";
import { z } from "zod";
import { MemoryController } from "agent-memory";
import type { ChatMessage } from "agent-memory";
import { fromModelMessages, fromUIMessages, memoryMiddleware, memoryTools, toModelMessages, toUIMessages } from "agent-memory/ai-sdk";
import type { MemoryTools, StoredReport } from "agent-memory/ai-sdk";

async function main(): Promise<void> {
  const memory = await MemoryController.create({ model: "gpt-4o" });
  const openai = createOpenAI({ apiKey: "sk-test" });

  // The middleware is ai 7's LanguageModelMiddleware; wrapLanguageModel takes it.
  const middleware: LanguageModelMiddleware = memoryMiddleware(memory, {
    reserveOutput: 1000,
    conversation: "full",
    onStored: (r: StoredReport) => console.log(r.status, r.prompt, r.response, r.superseded, r.droppedToolCalls, r.usd),
  });
  const model = wrapLanguageModel({ model: openai.chat("gpt-4o"), middleware });
  const responses = wrapLanguageModel({ model: openai.responses("gpt-4o"), middleware: memoryMiddleware(memory) });

  // Memory tools beside the app's own.
  const tools: MemoryTools = memoryTools(memory, { recallTokens: 300 });
  const toolSet: ToolSet = tools;
  const weather = tool({ inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => ({ city, sky: "sunny" }) });
  const result = await generateText({ model, prompt: "hi", tools: { ...memoryTools(memory), weather }, stopWhen: isStepCount(3) });
  const stream = streamText({ model: responses, prompt: "hi", tools: toolSet });
  console.log(await stream.text);
  const remembered: string = await tools.remember.execute({ text: "likes tea", kind: "preference" });

  // The mapping: a context goes to generateText as it is; steps come back.
  const ctx = await memory.buildContext();
  const { instructions, messages } = toModelMessages(ctx.messages);
  const sys: SystemModelMessage[] = instructions;
  const msgs: ModelMessage[] = messages;
  await generateText({ model: openai.chat("gpt-4o"), ...toModelMessages(ctx.messages) });
  const back: ChatMessage[] = fromModelMessages(result.steps.flatMap((s) => s.response.messages));

  // useChat state: restored from memory, imported into it.
  const ui: UIMessage[] = toUIMessages(await memory.history());
  const alsoFromMessages: UIMessage[] = toUIMessages(ctx.messages);
  const modelMessages = await convertToModelMessages(ui);
  const imported: ChatMessage[] = fromUIMessages(ui);
  console.log(sys, msgs, back, alsoFromMessages, modelMessages, imported, remembered);

  // ai 6: the v3 middleware.
  const middleware6: LanguageModelMiddleware6 = memoryMiddleware(memory, { specificationVersion: "v3" });
  const model6 = wrapLanguageModel6({ model: createOpenAI3({ apiKey: "sk-test" }).chat("gpt-4o"), middleware: middleware6 });
  await generateText6({ model: model6, system: instructions, messages });

  // @ts-expect-error: no such option
  memoryMiddleware(memory, { maxToken: 5 });
  // @ts-expect-error: conversation is "auto" or "full"
  memoryMiddleware(memory, { conversation: "whole" });
  // @ts-expect-error: ai 7's middleware is not ai 6's
  const wrongVersion: LanguageModelMiddleware6 = memoryMiddleware(memory);
  // @ts-expect-error: remember needs text
  await tools.remember.execute({ key: "k" });
  // @ts-expect-error: toModelMessages takes chat messages, not UI messages
  toModelMessages(ui);
  console.log(wrongVersion);
}
void main;
