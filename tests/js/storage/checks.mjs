// Browser-only checks beyond the acceptance suite. Each returns plain
// observations (JSON) for the node test to assert on, so a failure there
// shows what the browser actually did.

const timeout = (ms, value) => new Promise((resolve) => setTimeout(() => resolve(value), ms));
const outcome = (p) =>
  p.then(
    () => "resolved",
    (e) => `${e?.name}:${e?.code}:${e?.cause?.name ?? ""}`,
  );
const deleteDb = (name) =>
  Promise.race([new Promise((resolve) => (indexedDB.deleteDatabase(name).onsuccess = () => resolve("deleted"))), timeout(5000, "blocked")]);

// Fill localStorage until a save fails: the failure is STORAGE_QUOTA, and
// nothing saved before it, nor the key it was writing, is damaged.
export async function quotaCheck(localStorageAdapter) {
  localStorage.clear();
  const a = localStorageAdapter("quota");
  const size = 256 * 1024;
  let saved = 0;
  let error;
  for (; saved < 1000; saved++) {
    try {
      await a.save(["fill", String(saved)], new Uint8Array(size).fill(saved & 0xff));
    } catch (e) {
      error = e;
      break;
    }
  }
  const out = { saved, isError: error instanceof Error, name: error?.name, code: error?.code, causeName: error?.cause?.name };
  out.intact = true;
  for (let i = 0; i < saved; i++) {
    const v = await a.load(["fill", String(i)]);
    if (v?.length !== size || v.some((b) => b !== (i & 0xff))) out.intact = false;
  }
  out.failedKeyAbsent = (await a.load(["fill", String(saved)])) === undefined;
  // An overwrite that does not fit fails the same way and keeps the old value.
  out.overwrite = await outcome(a.save(["fill", "0"], new Uint8Array(4 * 1024 * 1024)));
  const v0 = await a.load(["fill", "0"]);
  out.overwriteKeptOld = v0?.length === size && v0.every((b) => b === 0);
  out.rangeCount = (await a.loadRange(["fill"])).length;
  await a.removeRange([]);
  out.emptyAfterRemoveRange = localStorage.length === 0;
  localStorage.clear();
  return out;
}

// IndexedDB behaviour across connections, deletions and foreign databases.
export async function idbChecks(indexedDBStorage) {
  const out = {};
  // Two adapters on one database, as two tabs would have.
  const a = indexedDBStorage("shared");
  const b = indexedDBStorage("shared");
  await a.save(["x"], new Uint8Array([1]));
  out.otherSees = Array.from((await b.load(["x"])) ?? []);
  await b.save(["y"], new Uint8Array([2]));
  out.rangeBoth = (await a.loadRange([])).length;

  // Deleting the database while both are open must not be blocked by them,
  // and they must work again afterwards (on a fresh, empty database).
  out.delete = await deleteDb("shared");
  out.afterDelete = (await a.load(["x"])) === undefined;
  await a.save(["z"], new Uint8Array([3]));
  out.afterDeleteSave = Array.from((await b.load(["z"])) ?? []);
  await deleteDb("shared");

  // The array-key range bound: [p, [...p, []]) holds exactly the keys under p.
  const r = indexedDBStorage("range");
  const keys = [["a"], ["a", ""], ["a", "\uffff"], ["a", "\uffff", "x"], ["a", "\u0000"], ["a\u0000"], ["a\uffff"], ["`"], ["b"], [""]];
  for (const k of keys) await r.save(k, new Uint8Array([1]));
  out.range = (await r.loadRange(["a"])).map((e) => JSON.stringify(e.key)).sort();
  await deleteDb("range");

  // A database this adapter cannot use is an error it reports, not a hang.
  await new Promise((resolve) => {
    const req = indexedDB.open("newer", 2);
    req.onupgradeneeded = () => req.result.createObjectStore("entries");
    req.onsuccess = () => (req.result.close(), resolve());
  });
  out.newerVersion = await outcome(indexedDBStorage("newer").load(["k"]));
  await deleteDb("newer");
  await new Promise((resolve) => {
    const req = indexedDB.open("foreign", 1);
    req.onupgradeneeded = () => req.result.createObjectStore("other");
    req.onsuccess = () => (req.result.close(), resolve());
  });
  out.foreignSchema = await outcome(indexedDBStorage("foreign").save(["k"], new Uint8Array(1)));
  await deleteDb("foreign");
  return out;
}
