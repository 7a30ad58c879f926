// The main entries ("agent-memory") re-export the AI SDK message mapping, as
// in 0.1, for apps that import it from there. It lives in
// agent-memory/ai-sdk (js/ai-sdk-messages.js, documented in ai-sdk.d.ts);
// toModelMessages now returns { instructions, messages }, as ai 7 takes them.
export { fromModelMessages, toModelMessages } from "./ai-sdk-messages.js";
