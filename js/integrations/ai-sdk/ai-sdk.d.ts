// Types of agent-memory/ai-sdk (js/ai-sdk*.js). The AI SDK's own types are
// restated structurally (ai 7's `ModelMessage`, `UIMessage`, the middleware
// shape) so the package does not depend on `ai`; tests/types/ai-sdk checks
// them against ai 7's (and, for the middleware, ai 6's). The main entry
// re-exports the two ModelMessage mappings (index.d.ts, the main entries).
import type { ChatMessage, ContextOptions, HistoryItem, MemoryController } from "../../wasm/agent_memory.js";

// ---------------------------------------------------------------- ModelMessage

/** A JSON value, as the AI SDK types it. */
export type ModelJSONValue = null | string | number | boolean | ModelJSONValue[] | { [key: string]: ModelJSONValue | undefined };
export type ModelProviderOptions = Record<string, { [key: string]: ModelJSONValue | undefined }>;

export interface ModelTextPart {
  type: "text";
  text: string;
  providerOptions?: ModelProviderOptions;
}
/**
 * A file: `data` is base64, or a URL string (`https:`, `data:`), or a
 * provider reference (`{ openai: "file-…" }`, an uploaded file).
 */
export interface ModelFilePart {
  type: "file";
  mediaType: string;
  data: string | { openai: string };
  filename?: string;
  providerOptions?: ModelProviderOptions;
}
export interface ModelReasoningPart {
  type: "reasoning";
  text: string;
  providerOptions?: ModelProviderOptions;
}
export interface ModelToolCallPart {
  type: "tool-call";
  toolCallId: string;
  toolName: string;
  input: unknown;
  providerOptions?: ModelProviderOptions;
}
export interface ModelToolResultPart {
  type: "tool-result";
  toolCallId: string;
  toolName: string;
  output: { type: "text"; value: string } | { type: "json"; value: ModelJSONValue };
  providerOptions?: ModelProviderOptions;
}

export interface SystemModelMessage {
  role: "system";
  content: string;
  providerOptions?: ModelProviderOptions;
}
/** ai 7's `ModelMessage`, as toModelMessages writes it (ai's own type accepts it). */
export type ModelMessage =
  | { role: "user"; content: string | (ModelTextPart | ModelFilePart)[]; providerOptions?: ModelProviderOptions }
  | { role: "assistant"; content: (ModelTextPart | ModelReasoningPart | ModelToolCallPart)[]; providerOptions?: ModelProviderOptions }
  | { role: "tool"; content: ModelToolResultPart[]; providerOptions?: ModelProviderOptions };

/**
 * What fromModelMessages reads: ai 7's or ai 6's `ModelMessage`, or a
 * provider-level prompt message (`LanguageModelV4Prompt`, V3). Checked at run
 * time, part by part.
 */
export interface ModelMessageLike {
  role: string;
  content: unknown;
}

/**
 * AI SDK messages → OpenAI chat messages, ready for `memory.add`
 * (`for (const m of fromModelMessages(steps.flatMap((s) => s.response.messages))) await memory.add(m)`).
 * Reads ai 7's and ai 6's `ModelMessage` and the providers' prompts.
 *
 * | AI SDK | OpenAI chat message |
 * |---|---|
 * | `{ role: "system", content }` | `{ role: "system", content }` |
 * | user `content: string`, or one text part | `content: string` (as `@ai-sdk/openai` sends it) |
 * | user text parts (more than one, or beside files) | `{ type: "text", text }` parts |
 * | user `{ type: "file", mediaType: "image/…" \| "image" }`, or ai 6's `{ type: "image", image }` | `{ type: "image_url", image_url: { url } }`: a URL as is; bytes or base64 as a `data:` URL (media type from `mediaType`, else sniffed from the bytes, else `image/jpeg`); `providerOptions.openai.imageDetail` → `detail` |
 * | user `{ type: "file", mediaType: "audio/wav" \| "audio/mpeg" \| "audio/mp3" }` | `{ type: "input_audio", input_audio: { data, format: "wav" \| "mp3" } }` |
 * | user file with a provider reference (`{ openai: id }`, ai 7's `{ type: "reference" }`), or ai 6's `data: "file-…"` | `{ type: "file", file: { file_id, filename? } }` |
 * | user `{ type: "file", data, mediaType, filename? }` (other) | `{ type: "file", file: { file_data: "data:<mediaType>;base64,…", filename? } }` |
 * | file data in any of ai 7's forms | `{ type: "data", data }`, `{ type: "url", url }`, `{ type: "reference" }`, bare base64, bytes, `URL` or URL string |
 * | assistant text parts | `content`: the texts concatenated; `null` when there are tool calls and no text |
 * | assistant `{ type: "reasoning" }` parts | `reasoning_content`: their texts concatenated (stored; the controller decides when it is sent back) |
 * | assistant `{ type: "tool-call", toolCallId, toolName, input }` | `tool_calls: [{ id, type: "function", function: { name, arguments } }]`; `arguments` as `@ai-sdk/openai` sends them: a JSON object, else `"{}"` |
 * | `{ role: "tool", content: [r1, r2] }` | one `{ role: "tool", tool_call_id, content }` per result, `content` as `@ai-sdk/openai` 4 sends it: `text` as is, `json` / `content` JSON-encoded, `error-text` / `error-json` as `{"error": value}`, `execution-denied` as its reason (or "Tool call execution denied.") |
 *
 * Dropped, as the OpenAI chat provider drops them: provider-executed tool
 * calls and their results, assistant files, sources, custom parts, tool
 * approval requests and responses, `providerOptions` (except
 * `openai.imageDetail` on images).
 *
 * # Errors
 * Throws a `MemoryError` (`name === "MemoryError"`): `INVALID_CONTENT` for an
 * unknown part type, a part in the wrong role (anything but results in a tool
 * message), non-string system content, an unknown tool output type, inline
 * text files, a URL where OpenAI needs bytes (audio, non-image files);
 * `INVALID_ROLE` for an unknown role; `INVALID_INPUT` for a non-array or a
 * non-object message.
 */
export declare function fromModelMessages(messages: readonly ModelMessageLike[]): ChatMessage[];

/**
 * OpenAI chat messages (`ctx.messages` from `buildContext`, or `history()`)
 * → what ai 7's `generateText` / `streamText` take: system and developer
 * messages as `instructions`, in order; the rest as `messages`. With ai 7:
 * `generateText({ model, ...toModelMessages(ctx.messages) })`; with ai 6:
 * `const { instructions, messages } = toModelMessages(…)` and
 * `generateText({ model, system: instructions, messages })`.
 *
 * | OpenAI chat message | AI SDK |
 * |---|---|
 * | `system` / `developer` before the first turn | an `instructions` entry `{ role: "system", content }` (text parts joined by `"\n"`) |
 * | `system` / `developer` after it (a context's recall block) | a leading text part of the next user message, so the prefix before it stays cacheable (kept as an instruction when no user message follows) |
 * | user `content: string` | `content: string` |
 * | user `{ type: "text" }` | `{ type: "text", text }` |
 * | user `{ type: "image_url", image_url: { url, detail? } }` | `{ type: "file", mediaType, data }`: a `data:` URL becomes base64 `data` and its `mediaType`; another URL stays a string with `mediaType: "image/*"`; `detail` → `providerOptions.openai.imageDetail` |
 * | user `{ type: "input_audio", input_audio: { data, format } }` | `{ type: "file", data, mediaType: "audio/wav" \| "audio/mpeg" \| "audio/<format>" }` |
 * | user `{ type: "file", file: { file_data, filename? } }` | `{ type: "file", data: <base64>, mediaType: <from the data URL>, filename? }` |
 * | user `{ type: "file", file: { file_id } }` | `{ type: "file", data: { openai: file_id }, mediaType: "application/pdf" }` (OpenAI chat files are PDFs) |
 * | assistant `reasoning_content` (or `reasoning`) | a leading `{ type: "reasoning", text }` part |
 * | assistant `content` and `tool_calls` | `content`: always an array (as the AI SDK's own response messages): a text part (if non-empty; `refusal` parts, or a `refusal` string without text, become text), then one `tool-call` part per call with `input: JSON.parse(arguments)` (the raw string when it is not JSON) |
 * | consecutive `tool` messages | one `{ role: "tool" }` message with a `tool-result` part each; `toolName` from the call it answers; `output` is `{ type: "json" }` when the content is a JSON object or array written as `JSON.stringify` writes it (so it goes back byte for byte), else `{ type: "text" }` |
 *
 * Always dropped: `name`, `annotations`, `audio`, other extra fields.
 *
 * Round trips. `fromModelMessages` of the result gives back the input when it
 * is in OpenAI's own form: assistant content a string or `null` with tool
 * calls, user content a string or several parts, no `developer` role or
 * `name`, audio as wav or mp3, tool results as `@ai-sdk/openai` 4 writes them.
 *
 * # Errors
 * Throws a `MemoryError`: `INVALID_CONTENT` for an unknown part type (or a
 * non-text part in system/developer/tool content, a malformed tool call, a
 * `file_data` that is not a base64 data URL); `TOOL_RESULT_WITHOUT_CALL` for a
 * tool message whose `tool_call_id` answers no earlier call (its `toolName`
 * is unknown); `INVALID_ROLE`; `INVALID_INPUT`.
 */
export declare function toModelMessages(messages: readonly ChatMessage[]): { instructions: SystemModelMessage[]; messages: ModelMessage[] };

// ---------------------------------------------------------------- UIMessage

/** ai 7's `UIMessage` parts, as toUIMessages writes them. */
export type MemoryUIPart =
  | { type: "step-start" }
  | { type: "text"; text: string; state?: "streaming" | "done" }
  | { type: "reasoning"; text: string; state?: "streaming" | "done" }
  | { type: "file"; mediaType: string; url: string; filename?: string; providerReference?: Record<string, string> }
  | { type: `tool-${string}`; toolCallId: string; state: "input-available"; input: unknown }
  | { type: `tool-${string}`; toolCallId: string; state: "output-available"; input: unknown; output: unknown };

/** ai 7's `UIMessage`, as toUIMessages writes it (useChat takes it as is). */
export interface MemoryUIMessage {
  id: string;
  role: "system" | "user" | "assistant";
  metadata?: unknown;
  parts: MemoryUIPart[];
}

/** What fromUIMessages reads: ai 7's (or ai 6's) `UIMessage`, checked at run time. */
export interface UIMessageLike {
  role: string;
  parts: readonly { type: string }[];
}

/**
 * Memory → useChat: OpenAI chat messages, or the items of `memory.history()`
 * (their ids become the UIMessages' ids), as UIMessages, for an app that
 * restores a chat (`useChat({ messages: toUIMessages(await memory.history()) })`).
 * A user message is one UIMessage; an assistant turn (its steps and the
 * results of their tool calls, up to the next user message) is one, each
 * step opened by a `step-start` part, as the AI SDK writes them: reasoning,
 * text, then a `tool-<name>` part per call (`output-available` with its
 * result, JSON-parsed when it parses; `input-available` while unanswered).
 * System and developer messages are left out: instructions belong on the
 * server, and ai 7 refuses system messages in `messages`. Sent back through
 * useChat and `convertToModelMessages`, the chat reaches memoryMiddleware as
 * the turns memory holds: recognised, not stored again.
 *
 * # Errors
 * `INVALID_INPUT` (not an array, a non-object item), `INVALID_ROLE`,
 * `INVALID_CONTENT` (an unknown user part), `TOOL_RESULT_WITHOUT_CALL`.
 */
export declare function toUIMessages(items: readonly (ChatMessage | HistoryItem)[]): MemoryUIMessage[];

/**
 * useChat → memory: UIMessages (a persisted chat) as OpenAI chat messages,
 * ready for `memory.add`, read as ai 7's `convertToModelMessages` reads them
 * and then mapped by fromModelMessages: each `step-start` opens an assistant
 * message; a tool part becomes a call, and its result when it has one
 * (`output-available`: the output; `output-error`: `{"error": errorText}`;
 * denied: the reason); `input-streaming` parts, provider-executed tools,
 * sources and `data-*` parts are left out.
 *
 * # Errors
 * `INVALID_INPUT` (a message without parts), `INVALID_ROLE`, and
 * fromModelMessages' errors.
 */
export declare function fromUIMessages(messages: readonly UIMessageLike[]): ChatMessage[];

// ---------------------------------------------------------------- middleware

/** What one model call stored: in `onStored`, and in the result's `providerMetadata.agentMemory`. */
export interface StoredReport {
  /**
   * "finished": the response was stored whole. "aborted" (the caller aborted
   * or cancelled) and "failed" (the provider failed, the connection dropped,
   * the stream sent an error or ended without finishing): its text and
   * reasoning so far were stored, its tool calls were not.
   */
  status: "finished" | "aborted" | "failed";
  /** Ids of the call's messages memory did not hold yet (a new user turn, a step's tool results). */
  prompt: string[];
  /** Id of the stored response (empty when it had no text, reasoning or tool call). */
  response: string[];
  /** Ids of held messages the prompt replaced (a regenerated answer, an edited turn), now forgotten. */
  superseded: string[];
  /** Tool calls of an aborted or failed stream, or unfinished ones, that were not stored. */
  droppedToolCalls: number;
  /** What recordUsage charged; absent when the provider reported no usage (aborted streams, some providers). */
  usd?: number | null;
}

/** Passed to buildContext as they are (see `ContextOptions`). */
export interface MemoryMiddlewareOptions
  extends Pick<ContextOptions, "semanticTokens" | "episodicTokens" | "preferenceTokens" | "taskId" | "taskTokens"> {
  /**
   * Context budget. Default: the memory model's context window, which a long
   * memory fills with episode summaries (10,000 messages: some 126,000
   * tokens a call): set it to what a call may cost.
   */
  maxTokens?: number;
  /**
   * Tokens kept free for the answer. Default: the call's `maxOutputTokens`,
   * else the memory model's output limit (4096 for a model the table does
   * not know). A model whose output limit is its whole window (gpt-4: 8192
   * of 8192) leaves no room by default: give it `maxOutputTokens`.
   */
  reserveOutput?: number;
  /**
   * "auto" (default): each call may pass only the new turn, or the whole
   * conversation, or a window of it; see `StoredReport.superseded` for what
   * an edit or a regeneration replaces. "full": every call passes the whole
   * conversation from its first message, so a prompt that stops short of
   * what memory holds is always a regeneration.
   */
  conversation?: "auto" | "full";
  /** Send the procedures' tools (setProcedures) beside the call's. Default true. */
  procedureTools?: boolean;
  /** The model recordUsage charges. Default: the wrapped model's `modelId`. */
  model?: string;
  /** Called after each model call with what it stored (also for aborted and failed calls). */
  onStored?: (report: StoredReport) => void | Promise<void>;
  /** "v4" (default) for ai 7's wrapLanguageModel, "v3" for ai 6's. */
  specificationVersion?: "v4" | "v3";
  /** Passed to buildContext: "stable" (default) puts the recall block into the newest user turn and an Anthropic cache breakpoint before it; "recall-first" keeps it at the top. */
  layout?: ContextOptions["layout"];
}

/**
 * A language model middleware (ai's `LanguageModelMiddleware`). Its
 * parameters are the AI SDK's provider-level types, opaque here.
 */
export interface MemoryMiddleware<V extends "v4" | "v3" = "v4"> {
  readonly specificationVersion: V;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the SDK's own call types
  transformParams(options: { type: "generate" | "stream"; params: any; model: any }): PromiseLike<any>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  wrapGenerate(options: {
    doGenerate: () => PromiseLike<any>;
    doStream: () => PromiseLike<any>;
    params: any;
    model: any;
  }): PromiseLike<any>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  wrapStream(options: { doGenerate: () => PromiseLike<any>; doStream: () => PromiseLike<any>; params: any; model: any }): PromiseLike<any>;
}

/**
 * Memory for any AI SDK model: `wrapLanguageModel({ model, middleware: memoryMiddleware(memory) })`,
 * then `generateText` / `streamText` (tool loops included) as usual.
 *
 * Before each model call (each step of a tool loop), the call's messages
 * memory does not hold yet are stored: the new user turn, a step's tool
 * results. Whether the app passes only the new turn or the whole
 * conversation (as useChat routes do), held messages are recognised by
 * content and not stored again; a conversation that leaves memory's (a
 * regenerated answer, an edited message) replaces what followed, which is
 * forgotten (see `conversation`). Recognising reads the newest held
 * messages (`history({ limit })`), more of them only while they cannot
 * place the call's messages: a call costs what it passes, not the history
 * memory holds. The provider then gets memory's context
 * instead of the call's messages: the call's instructions (in place of
 * stored system messages), procedures' rules, the memory blocks, the
 * knowledge relevant to the newest user message, and the newest turns that
 * fit `maxTokens − reserveOutput`; the procedures' tools are added to the
 * call's tools (a call's tool of the same name wins; the SDK answers a call
 * of a tool it has no `execute` for with an error result).
 *
 * After the call, its response (text, reasoning as `reasoning_content`, tool
 * calls) is stored and its usage charged with recordUsage, once. A stream is
 * stored when its finish part arrives, before the part is passed on; an
 * aborted or failed stream stores its text so far and says so
 * (`StoredReport`). The report is in the result's
 * `providerMetadata.agentMemory` and goes to `onStored`. When the response's
 * parts carry provider metadata (the Responses provider's item ids and
 * encrypted reasoning), they are kept whole in the stored message's
 * `ai_sdk_content` field, and the current tool loop's answers go back to the
 * provider with them: a reasoning model gets its reasoning items back
 * between steps, as without memory. Earlier turns go as plain messages.
 *
 * Limits: the results of tool calls made by a loop's last step (the loop
 * stopped by `stopWhen`) never reach the model, so they reach memory with
 * the next call that carries them (a useChat route does); a stream aborted
 * mid-word stores the text that passed through the middleware, which can be
 * a little more than the client showed (the next whole-conversation call
 * replaces it with the client's).
 *
 * # Errors
 * Throws `INVALID_INPUT` for a bad option or a non-controller. During a call,
 * memory's errors (`STORAGE_ERROR`, `CONTEXT_OVERFLOW`, `INVALID_CONTENT`, …)
 * reject `generateText` or error the stream: a call is never answered with
 * memory silently left behind.
 */
export declare function memoryMiddleware(
  memory: MemoryController,
  options: MemoryMiddlewareOptions & { specificationVersion: "v3" },
): MemoryMiddleware<"v3">;
export declare function memoryMiddleware(memory: MemoryController, options?: MemoryMiddlewareOptions): MemoryMiddleware<"v4">;

// ---------------------------------------------------------------- memory tools

/** ai 7's `StandardSchema` with its JSON Schema, as the AI SDK takes it for `inputSchema`. */
export interface MemoryToolSchema<INPUT> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => { value: INPUT };
    readonly types?: { readonly input: INPUT; readonly output: INPUT };
    readonly jsonSchema: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
      readonly output: (options: { readonly target: string }) => Record<string, unknown>;
    };
  };
}

/** One memory tool, an AI SDK `Tool` whose answer is the text callTool resolves to. */
export interface MemoryTool<INPUT> {
  description: string;
  inputSchema: MemoryToolSchema<INPUT>;
  execute: (input: INPUT) => Promise<string>;
}

/** The memory tools, keyed by name, for an AI SDK `tools` set (a type alias: ai's `ToolSet` takes it). */
export type MemoryTools = {
  remember: MemoryTool<{ text: string; key?: string; kind?: "fact" | "preference" }>;
  recall: MemoryTool<{ query: string; k?: number }>;
  forget: MemoryTool<{ id: string }>;
};

/**
 * The model manages its own memory: `remember` (`{ text, key?, kind? }`),
 * `recall` (`{ query, k? }`) and `forget` (`{ id }`) as an AI SDK tool set,
 * bound to `memory`: `generateText({ model, tools: { ...memoryTools(memory), ...yours }, stopWhen })`.
 * The definitions are `memory.toolDefinitions()` and each call runs
 * `memory.callTool(name, input, { recallTokens })`: what the model got wrong
 * comes back as an "Error: …" text it can act on, and nothing changes; a
 * recall is one escaped `<memory>` block within `recallTokens` (default 500);
 * `forget` takes only ids this memory issued. With memoryMiddleware the tool
 * definitions are counted in the context like any call's tools.
 *
 * # Errors
 * Throws `INVALID_INPUT` for a non-controller or an unknown option. A call's
 * `execute` rejects with callTool's `MemoryError`s (`INVALID_INPUT` for a
 * `recallTokens` below 100, `STORAGE_*`, `CLOSED`); the SDK then answers the
 * call with an error result, as for any tool that throws.
 */
export declare function memoryTools(memory: MemoryController, options?: { recallTokens?: number }): MemoryTools;
