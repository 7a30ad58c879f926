// A Worker for the fault runs in workerd (tests/js/faults/run.mjs through the
// workerd build): GET /kv?seeds=N runs them on cloudflareKVStorage, /do and
// /do-sql inside a Durable Object (KV-backed or SQLite-backed) on
// durableObjectStorage; each answers faultRuns' totals as JSON. Each life
// gets a fresh adapter over the same binding, as a restarted isolate does.
import { MemoryController, cloudflareKVStorage, durableObjectStorage } from "../../../dist/workerd.js";
import { faultRuns } from "./run.mjs";
import { answer, storageObject, toObject } from "../workerd-support.mjs";

const seedsOf = (request) => Array.from({ length: Number(new URL(request.url).searchParams.get("seeds") ?? 5) }, (_, i) => i + 1);

export class FaultsDO extends storageObject((storage, request) =>
  faultRuns({ MemoryController, open: () => durableObjectStorage(storage), seeds: seedsOf(request) }),
) {}
export class FaultsDOSql extends FaultsDO {}

export default {
  fetch(request, env) {
    if (new URL(request.url).pathname !== "/kv") return toObject(request, env, "faults");
    return answer(() => faultRuns({ MemoryController, open: () => cloudflareKVStorage(env.KV), seeds: seedsOf(request) }));
  },
};
