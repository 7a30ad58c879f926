// A Worker for the upgrade test in workerd: POST the fixture's store.json to
// /kv, /do or /do-sql; it lays the values out as 0.1.0's cloudflareKVStorage
// or durableObjectStorage did (KV-backed or SQLite-backed object), opens them
// with the current workerd build and answers what it reported, as JSON. The
// same paths ending in /crash crash the upgrade at every step (crash.mjs).
import { MemoryController, cloudflareKVStorage, durableObjectStorage } from "../../../dist/workerd.js";
import { crashEveryStep } from "./crash.mjs";
import { observeUpgrade } from "./observe.mjs";
import { toDurableObject, toKV } from "./layout-v010.mjs";
import { answer, storageObject, toObject } from "../workerd-support.mjs";

const crashing = (request) => new URL(request.url).pathname.endsWith("/crash");

export class UpgradeDO extends storageObject(async (storage, request) => {
  const entries = await request.json();
  if (crashing(request)) {
    return crashEveryStep(MemoryController, async () => {
      await storage.deleteAll();
      await toDurableObject(storage, entries);
      return () => durableObjectStorage(storage);
    });
  }
  await toDurableObject(storage, entries);
  return observeUpgrade(MemoryController, () => durableObjectStorage(storage));
}) {}
export class UpgradeDOSql extends UpgradeDO {}

export default {
  fetch(request, env) {
    if (!/^\/kv(\/|$)/.test(new URL(request.url).pathname)) return toObject(request, env, crashing(request) ? "crash" : "user-42");
    return answer(async () => {
      const entries = await request.json();
      if (crashing(request)) {
        return crashEveryStep(MemoryController, async () => {
          await cloudflareKVStorage(env.KV).removeRange([]);
          await toKV(env.KV, entries);
          return () => cloudflareKVStorage(env.KV);
        });
      }
      await toKV(env.KV, entries);
      return observeUpgrade(MemoryController, () => cloudflareKVStorage(env.KV));
    });
  },
};
