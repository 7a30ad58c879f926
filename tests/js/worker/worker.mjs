// A Worker that uses the package's workerd entry, for the runtime tests:
// GET / counts and builds a context; /kv/write and /kv/read, and /do/write
// and /do/read (inside a Durable Object), each make a new controller, so
// a read after a write is a reload from storage.
import { MemoryController, cloudflareKVStorage, durableObjectStorage } from "../../../dist/workerd.js";

async function write(storage) {
  const memory = await MemoryController.create({
    namespace: "user-7",
    model: "gpt-4o",
    workingMemory: { maxTokens: 150 },
    foldAfter: 10,
    storage,
  });
  for (let i = 0; i < 25; i++) await memory.add({ role: i % 2 ? "assistant" : "user", content: `turn ${i}: 明天去成都 ${i}` });
  await memory.recordUsage({ promptTokens: 1000, completionTokens: 100 });
  return state(memory);
}

async function read(storage) {
  return state(await MemoryController.create({ namespace: "user-7", model: "gpt-4o", workingMemory: { maxTokens: 150 }, storage }));
}

async function state(memory) {
  return {
    history: await memory.history(),
    episodes: await memory.episodes(),
    usd: memory.stats().cost.usd,
    corrupt: memory.loadReport().corrupt,
  };
}

const json = async (f) => {
  try {
    return Response.json(await f());
  } catch (e) {
    return Response.json({ error: String(e.stack ?? e), code: e.code });
  }
};

export class MemoryObject {
  constructor(ctx) {
    this.ctx = ctx;
  }
  fetch(request) {
    const path = new URL(request.url).pathname;
    return json(() =>
      path.endsWith("/write") ? write(durableObjectStorage(this.ctx.storage)) : read(durableObjectStorage(this.ctx.storage)),
    );
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/kv/write") return json(() => write(cloudflareKVStorage(env.KV)));
    if (url.pathname === "/kv/read") return json(() => read(cloudflareKVStorage(env.KV)));
    if (url.pathname.startsWith("/do/")) return env.MEM.get(env.MEM.idFromName("user-7")).fetch(request);
    return json(async () => {
      const text = url.searchParams.get("text");
      const memory = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 100 } });
      for (let i = 0; i < 20; i++) await memory.add({ role: i % 2 ? "assistant" : "user", content: `${text} #${i}` });
      const ctx = await memory.buildContext({ maxTokens: 200 });
      return { count: memory.countTokens(text), contextTokens: ctx.tokens, recount: memory.countMessages(ctx.messages) };
    });
  },
};
