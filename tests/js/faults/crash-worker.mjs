// A Worker whose Durable Objects really crash: one object per run (as one
// per user), holding a controller over durableObjectStorage between
// requests, as an app's object does. A request may light a fuse: after that
// many more storage calls (the request's own or the controller's background
// folds after it answered) the object calls ctx.abort(), and workerd drops
// the instance with every write it had not yet flushed; the request in
// flight, if any, fails with a 500. The next request meets a new instance,
// which opens the controller again from what was flushed.
//   POST /do/add?seed=S&fuse=N&start=T  body: the text; answers 200 once added
//   (/do-sql/... for the SQLite backend)
//   GET  /do/history?seed=S             a fresh controller's history (texts)
import { MemoryController, durableObjectStorage } from "../../../dist/workerd.js";
import { rng, wildClock } from "./run.mjs";
import { answer, toObject } from "../workerd-support.mjs";

const CRASH = "injected crash";
const METHODS = ["load", "save", "remove", "loadRange", "removeRange"];
const optionsOf = (seed) => ({ namespace: `crash-${seed}`, model: "gpt-4o", workingMemory: { maxTokens: 160 }, foldAfter: 6 });

export class CrashDO {
  constructor(ctx) {
    this.ctx = ctx;
    this.fuse = Infinity;
  }
  // The adapter with the fuse on every call.
  storage() {
    const inner = durableObjectStorage(this.ctx.storage);
    const adapter = {};
    for (const name of METHODS) {
      adapter[name] = async (...args) => {
        if (--this.fuse <= 0) this.ctx.abort(CRASH);
        return inner[name](...args);
      };
    }
    return adapter;
  }
  async fetch(request) {
    const url = new URL(request.url);
    const seed = Number(url.searchParams.get("seed"));
    if (url.pathname.endsWith("/history")) {
      return answer(async () => {
        const memory = await MemoryController.create({ ...optionsOf(seed), storage: durableObjectStorage(this.ctx.storage) });
        const out = { corrupt: memory.loadReport().corrupt, texts: (await memory.history()).map((h) => h.message.content) };
        await memory.close();
        return out;
      });
    }
    const fuse = Number(url.searchParams.get("fuse"));
    if (fuse > 0) this.fuse = fuse;
    // A new instance's clock starts where the caller says (behind the last life's, as another machine's may).
    const clock = wildClock(rng(seed * 7919 + Number(url.searchParams.get("start"))), Number(url.searchParams.get("start")));
    this.memory ??= MemoryController.create({ ...optionsOf(seed), storage: this.storage(), clock });
    const memory = await this.memory;
    const { id } = await memory.add({ role: "user", content: await request.text() });
    return new Response(id);
  }
}

export class CrashDOSql extends CrashDO {}

export default {
  fetch(request, env) {
    return toObject(request, env, `crash-${new URL(request.url).searchParams.get("seed")}`);
  },
};
