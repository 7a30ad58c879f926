// The main entries' re-export of the AI SDK message mapping (see aisdk.js);
// the mapping and its types are documented in ai-sdk.d.ts.
export { fromModelMessages, toModelMessages } from "./ai-sdk.js";
export type {
  ModelFilePart,
  ModelJSONValue,
  ModelMessage,
  ModelMessageLike,
  ModelProviderOptions,
  ModelReasoningPart,
  ModelTextPart,
  ModelToolCallPart,
  ModelToolResultPart,
  SystemModelMessage,
} from "./ai-sdk.js";
