// Compiled with `tsc --strict` by tests/js/types-openai.test.mjs: the memory
// tools and agent-memory/openai type-check against the real `openai` client's
// types, with no casts: definitions and requests go out as built, responses
// come back in as returned.
import OpenAI from "openai";
import { MemoryController } from "agent-memory";
import type { ToolDefinition } from "agent-memory";
import { addResponse, fromResponse, toResponsesRequest, RESPONSE_FIELD } from "agent-memory/openai";

async function main(client: OpenAI): Promise<void> {
  const memory = await MemoryController.create({ model: "gpt-4o" });

  // Memory tools: the definitions go out as chat tools, the model's call comes back in.
  const tools: ToolDefinition[] = memory.toolDefinitions();
  const chatTools: OpenAI.ChatCompletionTool[] = tools;
  const reply = await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }], tools: chatTools });
  for (const call of reply.choices[0].message.tool_calls ?? []) {
    if (call.type !== "function") continue;
    const result: string = await memory.callTool(call.function.name, call.function.arguments);
    const fromObject: string = await memory.callTool("recall", { query: "x", k: 3 }, { recallTokens: 200 });
    console.log(result, fromObject);
  }
  // @ts-expect-error: args are the model's JSON string or an object
  await memory.callTool("recall", 42);
  // @ts-expect-error: no such option
  await memory.callTool("recall", "{}", { budget: 10 });

  // The quick start, typed: the context goes out as chat messages, the reply comes back in.
  const ctx = await memory.buildContext({ maxTokens: 8000, reserveOutput: 1000 });
  const answer = await client.chat.completions.create({ model: "gpt-4o", messages: ctx.messages, tools: ctx.tools });
  await memory.add(answer.choices[0].message);
  await memory.recordUsage(answer.usage!, { model: answer.model });
  const streamedChat = await client.chat.completions.stream({ model: "gpt-4o", messages: ctx.messages }).finalMessage();
  await memory.add(streamedChat);

  // The Responses API: the request spreads into responses.create, the response goes back in.
  const request = await toResponsesRequest(memory, await memory.buildContext());
  const response = await client.responses.create({ model: "o4-mini", ...request, store: false, include: ["reasoning.encrypted_content"] });
  const stored: { id: string; tokens: number; usd: number | null } = await addResponse(memory, response);
  const asMessage = fromResponse(response);
  console.log(stored, asMessage[RESPONSE_FIELD]);
  const streamed = await client.responses.stream({ model: "o4-mini", ...request }).finalResponse();
  await addResponse(memory, streamed);
  // @ts-expect-error: a chat completion is not a response
  fromResponse(reply);
}
void main;
