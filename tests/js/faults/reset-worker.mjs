// A Worker whose Durable Objects are reset while the package's WebAssembly
// instance (one per isolate, shared by every object) is in use. Each request
// names its object (`?o=`); every answer is JSON.
//   /warm                 loads the module in a request that then ends
//   /crash                a controller whose save calls ctx.abort(): the
//                         reset stops the call inside the module
//   /queued-then-abort    starts an add and calls ctx.abort() before its
//                         first step runs: no call is inside the module
//   /steady               adds `?text=` through the object's controller,
//                         opened on the first request, and answers its history
//   /held                 an add in flight (its save waits) while another
//                         object crashes and a third opens a controller:
//                         what the add, later calls and a reopen answer
import { MemoryController, durableObjectStorage } from "../../../dist/workerd.js";
import { answer } from "../workerd-support.mjs";
import { settled, thrown } from "../outcome.mjs";

export class ResetDO {
  constructor(ctx, env) {
    this.ctx = ctx;
    this.env = env;
  }
  open(namespace, storage = durableObjectStorage(this.ctx.storage)) {
    return MemoryController.create({ namespace, model: "gpt-4o", storage });
  }
  /** Another object's answer to `path` (a reset object's call throws its reason). */
  async ask(name, path) {
    try {
      const res = await this.env.DO.get(this.env.DO.idFromName(name)).fetch(`http://x${path}${path.includes("?") ? "&" : "?"}o=${name}`);
      return `${res.status} ${await res.text()}`;
    } catch (e) {
      return `threw ${e.message}`;
    }
  }
  fetch(request) {
    const url = new URL(request.url);
    return answer(async () => {
      switch (url.pathname) {
        case "/warm":
          await (await this.open("warm")).add({ role: "user", content: "warm" });
          return "warm";
        case "/crash": {
          const inner = durableObjectStorage(this.ctx.storage);
          const memory = await this.open("crash", { ...inner, save: () => this.ctx.abort("injected reset") });
          await memory.add({ role: "user", content: "never answered" });
          return "not reset";
        }
        case "/queued-then-abort": {
          const memory = await this.open("queued");
          memory.add({ role: "user", content: "queued" });
          this.ctx.abort("injected reset");
          return "not reset";
        }
        case "/steady": {
          this.memory ??= this.open("steady");
          const memory = await this.memory;
          await memory.add({ role: "user", content: url.searchParams.get("text") });
          return (await memory.history()).map((h) => h.message.content);
        }
        case "/held":
          return this.held();
      }
      throw new Error(`no route ${url.pathname}`);
    });
  }
  async held() {
    const inner = durableObjectStorage(this.ctx.storage);
    let slow = false;
    // While `slow`, a save waits long enough that only a rejection can end the add first.
    const storage = {
      ...inner,
      save: async (key, bytes) => (slow && (await new Promise((r) => setTimeout(r, 60_000))), inner.save(key, bytes)),
    };
    const memory = await this.open("held", storage);
    await memory.add({ role: "user", content: "acknowledged" });
    slow = true;
    const pending = settled(memory.add({ role: "user", content: "in flight" }));
    const crash = await this.ask("crash-for-held", "/crash");
    const other = await this.ask("opens-after", "/steady?text=fresh");
    const out = {
      crash,
      other,
      pending: await pending,
      stats: thrown(() => memory.stats()),
      add: await settled(memory.add({ role: "user", content: "after" })),
    };
    const reopened = await this.open("held", inner);
    out.reopened = (await reopened.history()).map((h) => h.message.content);
    return out;
  }
}

export class ResetDOSql extends ResetDO {}

export default {
  fetch(request, env) {
    const name = new URL(request.url).searchParams.get("o");
    return env.DO.get(env.DO.idFromName(name)).fetch(request);
  },
};
