// A chat Worker on the Vercel AI SDK with memory. One Durable Object per
// user (`ChatObject`) holds that user's MemoryController, its records in the
// object's own storage, and makes the model call through memoryMiddleware:
// one user's turns are stored in order whatever the number of open tabs, and
// users are isolated by construction. The client is useChat, pointed at
// `/api/chat?user=<name>` (your auth decides the name).
//
//   POST /api/chat?user=<name>   body: what useChat sends ({ messages, … })
//                                → the UI message stream
//
// Configuration: the secret OPENAI_API_KEY; OPENAI_BASE_URL to use another
// OpenAI-compatible endpoint.
import { DurableObject } from "cloudflare:workers";
import { createOpenAI } from "@ai-sdk/openai";
import { convertToModelMessages, streamText, wrapLanguageModel } from "ai";
import { MemoryController, durableObjectStorage } from "agent-memory";
import { memoryMiddleware } from "agent-memory/ai-sdk";

// User names become Durable Object names and the memory namespace (a storage
// key prefix): keep them short and printable.
const USER = /^[A-Za-z0-9_.@-]{1,64}$/;

// Whether `e`, or an error it wraps, says the controller's WebAssembly instance
// was retired: INSTANCE_RESET (the runtime stopped a call mid-way, in this
// object or another of the isolate) or INTERNAL (a trap). A fresh controller
// reloads the user's records.
const retired = (e) => e?.code === "INSTANCE_RESET" || e?.code === "INTERNAL" || (e?.cause != null && e.cause !== e && retired(e.cause));

export class ChatObject extends DurableObject {
  // One controller per object instance, created on the first request and
  // kept until the runtime evicts the object; `create` loads the user's
  // records, so a restarted object goes on where it was.
  #memory;

  async fetch(request) {
    const user = new URL(request.url).searchParams.get("user");
    this.#memory ??= MemoryController.create({ namespace: user, model: "gpt-4o", storage: durableObjectStorage(this.ctx.storage) });
    const loading = this.#memory;
    loading.catch(() => this.#memory === loading && (this.#memory = undefined)); // a failed load is retried by the next request
    const memory = await this.#memory;
    const openai = createOpenAI({ apiKey: this.env.OPENAI_API_KEY, baseURL: this.env.OPENAI_BASE_URL });
    const { messages } = await request.json();
    const result = streamText({
      model: wrapLanguageModel({ model: openai("gpt-4o"), middleware: memoryMiddleware(memory) }),
      instructions: "You are a travel assistant. Answer briefly.",
      messages: await convertToModelMessages(messages),
    });
    // Memory errors and provider errors reach the client as an error chunk; the details stay in the logs.
    const onError = (e) => {
      if (retired(e) && this.#memory === loading) this.#memory = undefined; // the next request opens a fresh one
      console.error(e);
      return "The assistant failed; try again.";
    };
    return result.toUIMessageStreamResponse({ onError });
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (request.method !== "POST" || url.pathname !== "/api/chat") return new Response("not found", { status: 404 });
    const user = new URL(request.url).searchParams.get("user");
    if (!USER.test(user ?? "")) return new Response("a user name is 1 to 64 of A-Z a-z 0-9 _ . @ -", { status: 400 });
    return env.CHAT.get(env.CHAT.idFromName(user)).fetch(request);
  },
};
