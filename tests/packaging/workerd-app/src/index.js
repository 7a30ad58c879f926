// A Worker using the installed package (its `workerd` entry, bundled by
// wrangler): GET / runs the shared conversation and answers its result.
import * as memory from "agent-memory";
import { runConversation } from "../conversation.js";

export default {
  async fetch() {
    try {
      return Response.json({ result: await runConversation(memory), wasmMemoryBytes: memory.wasmMemoryBytes() });
    } catch (e) {
      return Response.json({ error: `${e?.name}: ${e?.code ?? ""} ${e?.message ?? e}\n${e?.stack ?? ""}` }, { status: 500 });
    }
  },
};
