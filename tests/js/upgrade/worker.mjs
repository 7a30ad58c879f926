// A Worker for the upgrade test in workerd: POST the fixture's store.json to
// /kv, /do or /do-sql; it lays the values out as 0.1.0's cloudflareKVStorage
// or durableObjectStorage did (KV-backed or SQLite-backed object), opens them
// with the current workerd build and answers what it reported, as JSON.
import { MemoryController, cloudflareKVStorage, durableObjectStorage } from "../../../dist/workerd.js";
import { observeUpgrade } from "./observe.mjs";
import { toDurableObject, toKV } from "./layout-v010.mjs";

const answer = async (fn) => {
  try {
    return Response.json(await fn());
  } catch (e) {
    return Response.json({ error: String(e.stack ?? e) });
  }
};

export class UpgradeDO {
  constructor(ctx) {
    this.ctx = ctx;
  }
  fetch(request) {
    return answer(async () => {
      await toDurableObject(this.ctx.storage, await request.json());
      return observeUpgrade(MemoryController, () => durableObjectStorage(this.ctx.storage));
    });
  }
}

// The same class on the SQLite storage backend.
export class UpgradeDOSql extends UpgradeDO {}

export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (pathname === "/kv") {
      return answer(async () => {
        await toKV(env.KV, await request.json());
        return observeUpgrade(MemoryController, () => cloudflareKVStorage(env.KV));
      });
    }
    const ns = pathname === "/do-sql" ? env.DOSQL : env.DO;
    return ns.get(ns.idFromName("user-42")).fetch(request);
  },
};
