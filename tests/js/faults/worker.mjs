// A Worker for the fault runs in workerd (tests/js/faults/run.mjs through the
// workerd build): GET /kv?seeds=N runs them on cloudflareKVStorage, /do and
// /do-sql inside a Durable Object (KV-backed or SQLite-backed) on
// durableObjectStorage; each answers faultRuns' totals as JSON. Each life
// gets a fresh adapter over the same binding, as a restarted isolate does.
import { MemoryController, cloudflareKVStorage, durableObjectStorage } from "../../../dist/workerd.js";
import { faultRuns } from "./run.mjs";

const seedsOf = (request) => Array.from({ length: Number(new URL(request.url).searchParams.get("seeds") ?? 5) }, (_, i) => i + 1);

const answer = async (fn) => {
  try {
    return Response.json(await fn());
  } catch (e) {
    return Response.json({ error: String(e.stack ?? e) });
  }
};

export class FaultsDO {
  constructor(ctx) {
    this.ctx = ctx;
  }
  fetch(request) {
    return answer(() => faultRuns({ MemoryController, open: () => durableObjectStorage(this.ctx.storage), seeds: seedsOf(request) }));
  }
}

// The same class on the SQLite storage backend.
export class FaultsDOSql extends FaultsDO {}

export default {
  fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (pathname === "/kv") return answer(() => faultRuns({ MemoryController, open: () => cloudflareKVStorage(env.KV), seeds: seedsOf(request) }));
    const ns = pathname === "/do-sql" ? env.DOSQL : env.DO;
    return ns.get(ns.idFromName("faults")).fetch(request);
  },
};
