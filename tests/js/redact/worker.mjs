// A Worker for redact-workerd.test.mjs: runs the redaction scenario on
// cloudflareKVStorage (GET /kv) and, inside a Durable Object, on
// durableObjectStorage (GET /do: KV-backed class, GET /do-sql: SQLite-backed),
// and answers with what the backend holds, every value as text.
import { MemoryController, cloudflareKVStorage, durableObjectStorage } from "../../../dist/workerd.js";
import { answer, storageObject } from "../workerd-support.mjs";
import { scenario } from "./scenario.mjs";

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

const OPTIONS = { redact: { personal: true } };

async function onKV(kv) {
  const out = await scenario(MemoryController, cloudflareKVStorage(kv), OPTIONS);
  const raw = [];
  let cursor;
  do {
    const page = await kv.list({ cursor });
    for (const k of page.keys) raw.push(k.name + "\n" + text(await kv.get(k.name, "arrayBuffer")));
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor);
  return { ...out, raw: raw.join("\n") };
}

async function onDO(storage) {
  await storage.deleteAll();
  const out = await scenario(MemoryController, durableObjectStorage(storage), OPTIONS);
  const raw = [...(await storage.list())].map(([k, v]) => k + "\n" + text(v));
  return { ...out, raw: raw.join("\n") };
}

export const RedactDO = storageObject(onDO);
export class RedactDOSql extends RedactDO {}

export default {
  fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (pathname === "/kv") return answer(() => onKV(env.KV));
    const ns = pathname === "/do-sql" ? env.DOSQL : env.DO;
    return ns.get(ns.idFromName("redact")).fetch(request);
  },
};
