// Types of the Vercel AI SDK message mapping (js/aisdk.js). The AI SDK types
// are restated here (v5 `ModelMessage`) so the package does not depend on `ai`.
import type { ChatMessage } from "./wasm/agent_memory.js";

/** Base64 string, bytes, or a URL (a `URL` or a string with a scheme: `https:`, `data:`). */
export type ModelDataContent = string | Uint8Array | ArrayBuffer | URL;
/** A JSON value, as the AI SDK types it. */
export type ModelJSONValue = null | string | number | boolean | ModelJSONValue[] | { [key: string]: ModelJSONValue };
export type ModelProviderOptions = Record<string, Record<string, ModelJSONValue>>;

export interface ModelTextPart { type: "text"; text: string; providerOptions?: ModelProviderOptions }
export interface ModelImagePart { type: "image"; image: ModelDataContent; mediaType?: string; providerOptions?: ModelProviderOptions }
export interface ModelFilePart { type: "file"; data: ModelDataContent; mediaType: string; filename?: string; providerOptions?: ModelProviderOptions }
export interface ModelReasoningPart { type: "reasoning"; text: string; providerOptions?: ModelProviderOptions }
export interface ModelToolCallPart { type: "tool-call"; toolCallId: string; toolName: string; input: unknown; providerExecuted?: boolean; providerOptions?: ModelProviderOptions }
export type ModelToolResultOutput =
  | { type: "text"; value: string }
  | { type: "json"; value: ModelJSONValue }
  | { type: "error-text"; value: string }
  | { type: "error-json"; value: ModelJSONValue }
  | { type: "content"; value: ({ type: "text"; text: string } | { type: "media"; data: string; mediaType: string })[] };
export interface ModelToolResultPart { type: "tool-result"; toolCallId: string; toolName: string; output: ModelToolResultOutput; providerOptions?: ModelProviderOptions }

/** The AI SDK v5 `ModelMessage` (structurally; `ai`'s own type is assignable to it). */
export type ModelMessage =
  | { role: "system"; content: string; providerOptions?: ModelProviderOptions }
  | { role: "user"; content: string | (ModelTextPart | ModelImagePart | ModelFilePart)[]; providerOptions?: ModelProviderOptions }
  | { role: "assistant"; content: string | (ModelTextPart | ModelFilePart | ModelReasoningPart | ModelToolCallPart | ModelToolResultPart)[]; providerOptions?: ModelProviderOptions }
  | { role: "tool"; content: ModelToolResultPart[]; providerOptions?: ModelProviderOptions };

/**
 * Vercel AI SDK `ModelMessage`s → OpenAI chat messages, ready for
 * `memory.add` (e.g. `for (const m of fromModelMessages(response.messages)) await memory.add(m)`).
 *
 * | AI SDK `ModelMessage` | OpenAI chat message |
 * |---|---|
 * | `{ role: "system", content }` | `{ role: "system", content }` |
 * | user `content: string` | `content: string` |
 * | user `{ type: "text", text }` | `{ type: "text", text }` |
 * | user `{ type: "image", image, mediaType? }` | `{ type: "image_url", image_url: { url } }`: a URL as is; bytes or base64 as a `data:` URL (media type from `mediaType`, else sniffed from the bytes, else `image/jpeg`); `providerOptions.openai.imageDetail` → `detail` |
 * | user `{ type: "file", mediaType: "image/…" }` | an `image_url` part, as above |
 * | user `{ type: "file", mediaType: "audio/wav" \| "audio/mpeg" \| "audio/mp3" }` | `{ type: "input_audio", input_audio: { data, format: "wav" \| "mp3" } }` |
 * | user `{ type: "file", data: "file-…" }` (an uploaded file id) | `{ type: "file", file: { file_id } }` |
 * | user `{ type: "file", data, mediaType, filename? }` (other) | `{ type: "file", file: { file_data: "data:<mediaType>;base64,…", filename? } }` |
 * | assistant text parts | `content`: the texts concatenated (as `@ai-sdk/openai` sends them); `null` when there are tool calls and no text |
 * | assistant `{ type: "tool-call", toolCallId, toolName, input }` | `tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(input) } }]` |
 * | assistant `{ type: "reasoning" }` | dropped: chat completions takes no reasoning back |
 * | assistant provider-executed `tool-call` (`providerExecuted: true`) and `tool-result` | dropped: they ran at the provider and have no chat-completions form |
 * | `{ role: "tool", content: [r1, r2] }` | one `{ role: "tool", tool_call_id, content }` per result; `content` is `output.value` for `text` / `error-text`, else `JSON.stringify(output.value)` (as `@ai-sdk/openai`) |
 *
 * Always dropped: `providerOptions` (except `openai.imageDetail` on images).
 *
 * # Errors
 * Throws a `MemoryError` (`name === "MemoryError"`): `INVALID_CONTENT` for an
 * unknown part type, a part in the wrong role (a file in assistant content,
 * anything but `tool-result` in a tool message), non-string system content,
 * an unknown tool output type, a URL where OpenAI needs bytes (audio, non-image
 * files); `INVALID_ROLE` for an unknown role; `INVALID_INPUT` for a
 * non-array or non-object message.
 */
export declare function fromModelMessages(messages: readonly ModelMessage[]): ChatMessage[];

/**
 * OpenAI chat messages (e.g. `ctx.messages` from `buildContext`, or
 * `history()`) → Vercel AI SDK `ModelMessage`s, ready for `generateText({ messages })`.
 *
 * | OpenAI chat message | AI SDK `ModelMessage` |
 * |---|---|
 * | `system` / `developer` | `{ role: "system", content }` (text parts joined by `"\n"`; the AI SDK has no developer role) |
 * | user `content: string` | `content: string` |
 * | user `{ type: "text" }` | `{ type: "text", text }` |
 * | user `{ type: "image_url", image_url: { url, detail? } }` | `{ type: "image", image, mediaType? }`: a `data:` URL becomes base64 `image` plus `mediaType`, other URLs stay strings; `detail` → `providerOptions.openai.imageDetail` |
 * | user `{ type: "input_audio", input_audio: { data, format } }` | `{ type: "file", data, mediaType: "audio/wav" \| "audio/mpeg" \| "audio/<format>" }` |
 * | user `{ type: "file", file: { file_data, filename? } }` | `{ type: "file", data: <base64>, mediaType: <from the data URL>, filename? }` |
 * | user `{ type: "file", file: { file_id } }` | `{ type: "file", data: file_id, mediaType: "application/pdf" }` (OpenAI chat files are PDFs) |
 * | assistant `content` and `tool_calls` | `content`: always an array (as the AI SDK's own response messages): a text part (if non-empty; `refusal` parts become text), then one `tool-call` part per call with `input: JSON.parse(arguments)` (the raw string when it is not JSON) |
 * | consecutive `tool` messages | one `{ role: "tool" }` message with a `tool-result` part each; `toolName` from the call it answers; `output` is `{ type: "json" }` when the content is a JSON object or array, else `{ type: "text" }` |
 *
 * Always dropped: `name`.
 *
 * Round trips. `toModelMessages(fromModelMessages(x))` gives back `x` when
 * `x` is in the AI SDK's own form: assistant content as an array with at most
 * one text part, all results of one step in one tool message, tool outputs
 * `text` (not itself a JSON object/array) or `json` with an object/array
 * value, images with a media type, binary data as base64 strings.
 * `fromModelMessages(toModelMessages(y))` gives back `y` when `y` is in
 * OpenAI's own form: assistant content a string or `null` with tool calls,
 * no `developer` role or `name`, audio as wav or mp3.
 *
 * # Errors
 * Throws a `MemoryError`: `INVALID_CONTENT` for an unknown part type (or a
 * non-text part in system/developer/tool content, a malformed tool call, a
 * `file_data` that is not a base64 data URL); `TOOL_RESULT_WITHOUT_CALL` for a
 * tool message whose `tool_call_id` answers no earlier call (its `toolName`
 * is unknown); `INVALID_ROLE`; `INVALID_INPUT`.
 */
export declare function toModelMessages(messages: readonly ChatMessage[]): ModelMessage[];
