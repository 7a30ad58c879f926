// agent-memory/ai-sdk: the Vercel AI SDK integration (ai 7, and ai 6). Plain
// JS over a MemoryController, with no import of `ai` itself: apps that do not
// import this entry pay nothing for it.
export { memoryMiddleware } from "./ai-sdk-middleware.js";
export { fromModelMessages, toModelMessages } from "./ai-sdk-messages.js";
export { fromUIMessages, toUIMessages } from "./ai-sdk-ui.js";
export { memoryTools } from "./ai-sdk-tools.js";
