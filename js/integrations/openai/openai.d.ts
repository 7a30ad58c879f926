// Types of the OpenAI Responses API mapping (js/integrations/openai/openai.js), entry
// `agent-memory/openai`. The Responses types are restated structurally so the
// package does not depend on `openai`; its `Response` is assignable to `ResponseLike`.
import type { AssistantMessage, ChatMessage, Context, MemoryController } from "../../wasm/agent_memory.js";

/**
 * An output item of a response, as returned (`reasoning`, `message`,
 * `function_call`, hosted tools' items). No index signature: the `openai`
 * package's item interfaces must be assignable to it.
 */
export interface ResponseOutputItemLike {
  type: string;
  id?: string;
}

/** What the mapping reads of a Responses API `Response`. */
export interface ResponseLike {
  id: string;
  model: string;
  output: ResponseOutputItemLike[];
  /** `false` when the response was created with `store: false`: its reasoning items come back only with `encrypted_content`. */
  store?: boolean | null;
  usage?: ResponseUsageLike | null;
}

export interface ResponseUsageLike {
  input_tokens: number;
  output_tokens: number;
  total_tokens?: number;
  input_tokens_details?: { cached_tokens?: number };
  output_tokens_details?: { reasoning_tokens?: number };
}

/** The field of a stored assistant message that keeps its response: `{ id, model, store, output }`. */
export declare const RESPONSE_FIELD: "openai_response";

/** A user message's content part in the Responses input. */
export type ResponsesInputPart =
  | { type: "input_text"; text: string }
  | { type: "input_image"; image_url?: string; detail: "auto" | "low" | "high" }
  | { type: "input_file"; file_id?: string; file_data?: string; filename?: string };

/**
 * The input items `toResponsesRequest` builds. Each form is one the
 * Responses API (and the `openai` package's `ResponseInputItem`) takes.
 * Items of hosted tools (`web_search_call`, `file_search_call`, …) in the
 * current tool loop go back as the API returned them; their many shapes are
 * not spelled out here.
 */
export type ResponsesInputItem =
  | { role: "user"; content: string | ResponsesInputPart[] }
  | { role: "system" | "developer" | "assistant"; content: string }
  | { type: "function_call_output"; call_id: string; output: string }
  | {
      type: "function_call";
      call_id: string;
      name: string;
      arguments: string;
      id?: string;
      status?: "in_progress" | "completed" | "incomplete";
      namespace?: string;
    }
  | {
      type: "message";
      id: string;
      role: "assistant";
      status: "in_progress" | "completed" | "incomplete";
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API's annotation and logprob shapes, as returned
      content: ({ type: "output_text"; text: string; annotations: any[]; logprobs?: any[] } | { type: "refusal"; refusal: string })[];
      phase?: "commentary" | "final_answer" | null;
    }
  | {
      type: "reasoning";
      id: string;
      summary: { type: "summary_text"; text: string }[];
      encrypted_content?: string | null;
      content?: { type: "reasoning_text"; text: string }[];
      status?: "in_progress" | "completed" | "incomplete";
    };

/** A Responses API function tool. */
export interface ResponsesFunctionTool {
  type: "function";
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
  strict: boolean;
}

/**
 * A response → the assistant message to `memory.add()`:
 *
 * | response output | stored assistant message |
 * |---|---|
 * | `message` items' `output_text` parts | `content`: their texts joined by "\n" (`null` when there are only function calls, `""` when nothing) |
 * | `output_text` annotations | `annotations` (kept; chat contexts never send them) |
 * | `refusal` parts | `refusal` |
 * | `function_call` items | `tool_calls: [{ id: call_id, type: "function", function: { name, arguments } }]` |
 * | every item, as returned (reasoning, hosted tools' items included) | `openai_response: { id, model, store, output }` |
 *
 * Function outputs are stored as chat tool messages:
 * `memory.add({ role: "tool", tool_call_id: call.call_id, content })`.
 *
 * # Errors
 * Throws a `MemoryError` `INVALID_INPUT` when `response` has no `output` array.
 */
export declare function fromResponse(response: ResponseLike): AssistantMessage & {
  openai_response: { id: string; model: string; store: boolean; output: ResponseOutputItemLike[] };
};

/**
 * Stores a response (`memory.add(fromResponse(response))`) and charges its
 * usage at the model the response names (cached input at the cached price,
 * reasoning tokens as output). Resolves to the new message's `id` and
 * `tokens`, and the charge (`null` without usage).
 *
 * # Errors
 * Rejects as `add` and `recordUsage` do; if charging fails, the message is
 * already stored.
 */
export declare function addResponse(
  memory: MemoryController,
  response: ResponseLike,
): Promise<{ id: string; tokens: number; usd: number | null }>;

/**
 * A built context → the request fields for `client.responses.create`:
 *
 * - `instructions`: the context's leading system/developer messages (pinned
 *   prompt, rules, memory blocks), joined by a blank line;
 * - `input`: the rest, in order. User messages as `{ role: "user", content }`
 *   (parts: `text` → `input_text`, `image_url` → `input_image`, `file` →
 *   `input_file`); tool messages as `function_call_output`; a later
 *   system/developer message as an input message of its role.
 *   Assistant messages of the current tool loop (after the last user
 *   message) that were stored with `addResponse` go back as their output
 *   items, verbatim within the fields the input takes, so the API gets the
 *   reasoning items with the calls they produced. A reasoning item the API
 *   could not resolve (from a `store: false` response without
 *   `encrypted_content`: ask `include: ["reasoning.encrypted_content"]`) is
 *   left out and the items it produced go without their ids. Every other
 *   assistant message goes as plain items without ids: its text, then a
 *   `function_call` per tool call. Earlier turns' reasoning is not sent:
 *   the API drops it anyway.
 * - `tools`: the context's function tools in the Responses form
 *   (`strict: false` unless a tool says otherwise, as in chat completions).
 * - `prompt_cache_key`: {@link promptCacheKey} of `memory`, so the calls of
 *   one conversation reach the cache that holds their prefix.
 *
 * `ctx.tokens` counts the chat form of the messages; the reasoning items
 * of the current tool loop are sent on top of it. When the current turn has
 * assistant messages, their stored items are read by id (`messages(ids)`),
 * not the history.
 *
 * # Errors
 * Rejects with a `MemoryError`: `INVALID_CONTENT` for a part the Responses
 * input has no form for (audio input, a non-text part in system or tool
 * content), `INVALID_INPUT` when `ctx` is not a built context.
 */
export declare function toResponsesRequest(
  memory: MemoryController,
  ctx: Pick<Context, "messages" | "tools" | "sections">,
): Promise<{ instructions?: string; input: ResponsesInputItem[]; tools?: ResponsesFunctionTool[]; prompt_cache_key: string }>;

/**
 * A stable `prompt_cache_key` for the controller's namespace and thread
 * (`"am-"` and 16 hex digits of their FNV-1a hash: the user's id is not
 * sent). Pass it to `chat.completions.create` too: OpenAI routes requests
 * with the same key to the same prompt cache.
 */
export declare function promptCacheKey(memory: MemoryController): string;
