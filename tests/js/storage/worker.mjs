// A Worker for the workerd storage test: runs the acceptance suite against
// cloudflareKVStorage (GET /kv) and, inside a Durable Object, against
// durableObjectStorage (GET /do: KV-backed class, GET /do-sql: SQLite-backed),
// plus checks of what each adapter actually writes. Answers JSON.
import { cloudflareKVStorage, durableObjectStorage } from "../../../dist/workerd.js";
import { runStorageAdapterTests } from "../../../dist/testing.js";

const outcome = (p) =>
  p.then(
    () => "resolved",
    (e) => `${e?.name}:${e?.code}`,
  );

async function clearKV(kv) {
  let cursor;
  do {
    const page = await kv.list({ cursor });
    await Promise.all(page.keys.map((k) => kv.delete(k.name)));
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor);
}

async function kvChecks(kv) {
  await clearKV(kv);
  const a = cloudflareKVStorage(kv);
  const out = {};
  // 512 bytes of UTF-8 is the limit; the encoding adds "/" after each segment.
  out.key511 = await outcome(a.save(["x".repeat(511)], new Uint8Array(1)));
  out.key512 = await outcome(a.save(["x".repeat(512)], new Uint8Array(1)));
  out.cjk170 = await outcome(a.save(["好".repeat(170)], new Uint8Array(1))); // 510 + 1 bytes
  out.cjk171 = await outcome(a.save(["好".repeat(171)], new Uint8Array(1)));
  out.longPrefixRange = (await a.loadRange(["x".repeat(600)])).length;
  // More keys than one list page (1,000): loadRange must follow the cursor.
  await clearKV(kv);
  const keys = Array.from({ length: 1100 }, (_, i) => ["page", String(i).padStart(4, "0")]);
  for (let i = 0; i < keys.length; i += 50)
    await Promise.all(keys.slice(i, i + 50).map((k, j) => a.save(k, new Uint8Array([(i + j) & 0xff]))));
  const range = await a.loadRange(["page"]);
  out.paged = range.length;
  out.pagedIntact = range.every((e) => e.data.length === 1 && e.data[0] === (Number(e.key[1]) & 0xff));
  // Names this adapter did not write (a shared namespace) are left alone.
  await kv.put("someone-else", "x");
  out.foreignIgnored = (await a.loadRange([])).every((e) => e.key[0] === "page");
  await a.removeRange([]);
  out.afterRemoveRange = (await kv.list()).keys.map((k) => k.name);
  await clearKV(kv);
  return out;
}

async function doChecks(storage) {
  await storage.deleteAll();
  const a = durableObjectStorage(storage);
  const b = durableObjectStorage(storage); // a second adapter over the same object, as a second request would make
  const raw = async () => [...(await storage.list())];
  const out = {};
  await a.save(["big"], new Uint8Array(1024 * 1024).fill(7));
  const big = await raw();
  out.bigEntries = big.length;
  out.bigMaxValue = Math.max(...big.map(([, v]) => (v instanceof Uint8Array ? v.length : 0)));
  await a.save(["big"], new Uint8Array(10));
  out.afterShrink = (await raw()).length; // the 1 MB value's pieces are gone
  await a.remove(["big"]);
  out.afterRemove = (await raw()).length;
  // Two adapters racing on one key, big and small values: no orphan pieces.
  await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).save(["race"], new Uint8Array(i % 3 ? 10 : 400_000).fill(i))));
  const race = await a.load(["race"]);
  const pieces = race.length > 127 * 1024 ? Math.ceil(race.length / (127 * 1024)) : 0;
  out.raceConsistent = (await raw()).length === 1 + pieces && race.every((x) => x === race[0]);
  await b.remove(["race"]);
  // Ranges over several list pages (128 entries each), pieces straddling them.
  const keys = Array.from({ length: 300 }, (_, i) => ["p", String(i).padStart(3, "0")]);
  await Promise.all(keys.map((k, i) => a.save(k, new Uint8Array(i % 100 === 5 ? 300_000 : 3).fill(i & 0xff))));
  const range = await b.loadRange(["p"]);
  out.paged = range.length;
  out.pagedIntact = range.every((e) => e.data.every((x) => x === (Number(e.key[1]) & 0xff)));
  // Entries this adapter did not write are ignored by ranges and survive removeRange([]).
  await storage.put("app-state", 42);
  out.foreignIgnored = (await a.loadRange([])).length === 300;
  await a.removeRange([]);
  out.afterRemoveRange = (await raw()).map(([k]) => k);
  out.keyTooLong = await outcome(a.save(["x".repeat(2043)], new Uint8Array(1)));
  out.keyMax = await outcome(a.save(["x".repeat(2042)], new Uint8Array(1)));
  await storage.deleteAll();
  return out;
}

export class MemoryDO {
  constructor(ctx) {
    this.ctx = ctx;
  }
  async fetch() {
    const storage = this.ctx.storage;
    const results = await runStorageAdapterTests(async () => {
      await storage.deleteAll();
      return durableObjectStorage(storage);
    });
    return Response.json({ results, checks: await doChecks(storage) });
  }
}

// The same class on the SQLite storage backend.
export class MemoryDOSql extends MemoryDO {}

export default {
  async fetch(request, env) {
    try {
      const { pathname } = new URL(request.url);
      if (pathname === "/kv") {
        const results = await runStorageAdapterTests(async () => {
          await clearKV(env.KV);
          return cloudflareKVStorage(env.KV);
        });
        return Response.json({ results, checks: await kvChecks(env.KV) });
      }
      const ns = pathname === "/do-sql" ? env.DOSQL : env.DO;
      return await ns.get(ns.idFromName("suite")).fetch(request);
    } catch (e) {
      return Response.json({ error: String(e.stack ?? e) });
    }
  },
};
