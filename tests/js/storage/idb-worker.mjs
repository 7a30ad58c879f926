// The IndexedDB adapter inside a dedicated Web Worker: posts the suite's results.
import { indexedDBStorage } from "/dist/browser.js";
import { runStorageAdapterTests } from "/dist/testing.js";

let n = 0;
const names = [];
const results = await runStorageAdapterTests(() => indexedDBStorage(names[names.push(`worker-${n++}`) - 1]));
await Promise.all(names.map((name) => new Promise((resolve) => (indexedDB.deleteDatabase(name).onsuccess = resolve))));
postMessage(results);
