// A Worker for the upgrade test in workerd: POST the fixture's store.json to
// /kv, /do or /do-sql; it lays the values out as 0.1.0's cloudflareKVStorage
// or durableObjectStorage did (KV-backed or SQLite-backed object), opens them
// with the current workerd build and answers what it reported, as JSON.
import { MemoryController, cloudflareKVStorage, durableObjectStorage } from "../../../dist/workerd.js";
import { observeUpgrade } from "./observe.mjs";
import { toDurableObject, toKV } from "./layout-v010.mjs";
import { answer, storageObject, toObject } from "../workerd-support.mjs";

export class UpgradeDO extends storageObject(async (storage, request) => {
  await toDurableObject(storage, await request.json());
  return observeUpgrade(MemoryController, () => durableObjectStorage(storage));
}) {}
export class UpgradeDOSql extends UpgradeDO {}

export default {
  fetch(request, env) {
    if (new URL(request.url).pathname !== "/kv") return toObject(request, env, "user-42");
    return answer(async () => {
      await toKV(env.KV, await request.json());
      return observeUpgrade(MemoryController, () => cloudflareKVStorage(env.KV));
    });
  },
};
