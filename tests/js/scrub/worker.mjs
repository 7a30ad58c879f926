// A Worker for the scrub tests in workerd (redact-workerd.test.mjs,
// retention-workerd.test.mjs): runs a scenario (?scenario=redact, the
// default, or retention) on cloudflareKVStorage (GET /kv) and, inside a
// Durable Object, on durableObjectStorage (GET /do: KV-backed class,
// GET /do-sql: SQLite-backed), and answers with what the scenario returned
// and what the backend holds after it, every value as text.
import { MemoryController, cloudflareKVStorage, durableObjectStorage } from "../../../dist/workerd.js";
import { answer, storageObject } from "../workerd-support.mjs";
import * as redact from "./redact.mjs";
import * as retention from "./retention.mjs";

const text = (v) =>
  typeof v === "string"
    ? v
    : new TextDecoder().decode(
        v instanceof ArrayBuffer
          ? new Uint8Array(v)
          : ArrayBuffer.isView(v)
            ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength)
            : new TextEncoder().encode(JSON.stringify(v)),
      );

// Each scenario over an adapter maker (a new adapter over the same data per call) and the raw view.
const SCENARIOS = {
  redact: (open) => redact.scenario(MemoryController, open(), { redact: { personal: true } }),
  retention: (open, raw) => retention.scenario(MemoryController, open, raw),
};
const scenarioOf = (request) => SCENARIOS[new URL(request.url).searchParams.get("scenario") ?? "redact"];

async function onKV(kv, run) {
  const raw = async () => {
    const out = [];
    let cursor;
    do {
      const page = await kv.list({ cursor });
      for (const k of page.keys) out.push(k.name + "\n" + text(await kv.get(k.name, "arrayBuffer")));
      cursor = page.list_complete ? undefined : page.cursor;
    } while (cursor);
    return out.join("\n");
  };
  const out = await run(() => cloudflareKVStorage(kv), raw);
  return { ...out, raw: await raw() };
}

async function onDO(storage, request) {
  await storage.deleteAll();
  const raw = async () => [...(await storage.list())].map(([k, v]) => k + "\n" + text(v)).join("\n");
  const out = await scenarioOf(request)(() => durableObjectStorage(storage), raw);
  return { ...out, raw: await raw() };
}

export const ScrubDO = storageObject(onDO);
export class ScrubDOSql extends ScrubDO {}

export default {
  fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (pathname === "/kv") return answer(() => onKV(env.KV, scenarioOf(request)));
    const ns = pathname === "/do-sql" ? env.DOSQL : env.DO;
    return ns.get(ns.idFromName("scrub")).fetch(request);
  },
};
