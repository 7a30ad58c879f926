// A Worker that uses the package's workerd entry, for the runtime smoke test.
import { MemoryController } from "../../../dist/workerd.js";

export default {
  async fetch(request) {
    try {
      const text = new URL(request.url).searchParams.get("text");
      const memory = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 100 } });
      for (let i = 0; i < 20; i++) await memory.add({ role: i % 2 ? "assistant" : "user", content: `${text} #${i}` });
      const ctx = await memory.buildContext({ maxTokens: 200 });
      return Response.json({ count: memory.countTokens(text), contextTokens: ctx.tokens, recount: memory.countMessages(ctx.messages) });
    } catch (e) {
      return Response.json({ error: String(e.stack ?? e) });
    }
  },
};
