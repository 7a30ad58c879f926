// Persistence: bytes written per add() on a 10,000-message history, side by
// side with what a naive chat does (JSON.stringify of the whole history into
// one key on every turn); then save and load of 10,000 messages, in memory
// and on disk, with bytes stored per message.
//
//   node bench/persistence.mjs
//
// Ours writes one checksummed record per message and folds the log into a
// pack when it has grown by half the packed size, so the bytes per add stay
// flat while the naive rewrite grows with the history.

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryController, memoryStorage, nodeFileStorage } from "../dist/node.js";
import { history } from "./history.mjs";
import { fixed, int, isMain, kib, median, table } from "./lib.mjs";

const N = 10_000;

/** An adapter wrapper that counts what goes through `save`. */
function counting(inner) {
  const c = { bytes: 0, saves: 0 };
  return { c, adapter: { ...inner, save: async (k, d) => { c.bytes += d.length; c.saves++; return inner.save(k, d); } } };
}

async function storedBytes(storage) {
  return (await storage.loadRange([])).reduce((n, e) => n + e.data.length, 0);
}

export async function run() {
  const messages = history(N).slice(1);
  const out = [];

  // Bytes per add at three history sizes: ours vs the naive full rewrite.
  const { c, adapter } = counting(memoryStorage());
  const memory = await MemoryController.create({ namespace: "bench", model: "gpt-4o", storage: adapter });
  const marks = new Map([[1000, null], [5000, null], [N, null]]);
  let naiveTotal = 0;
  let naiveJson = 2; // "[]"
  let last = { bytes: 0, n: 0 };
  const rows = [];
  for (let i = 0; i < messages.length; i++) {
    await memory.add(messages[i]);
    naiveJson += JSON.stringify(messages[i]).length + (i ? 1 : 0);
    naiveTotal += naiveJson;
    if (marks.has(i + 1)) {
      // Average over the last 200 adds before the mark, both sides.
      rows.push([int(i + 1), int((c.bytes - last.bytes) / (i + 1 - last.n)), int(naiveJson), fixed(naiveJson / ((c.bytes - last.bytes) / (i + 1 - last.n)), 0) + "×"]);
      last = { bytes: c.bytes, n: i + 1 };
    }
  }
  out.push("## Persistence: bytes written per `add()`\n");
  out.push(`${int(N)} messages of the benchmark history (bench/history.mjs) added one by one through \`memoryStorage\`, counting every byte passed to \`save\` (records, episodes, packs). Naive: \`JSON.stringify(history)\` saved whole on every turn, as a localStorage chat typically does.\n`);
  out.push(table(["history size", "ours: bytes per add (mean since previous row)", "naive: bytes per add", "ratio"], rows));
  out.push(`\nIn total ours wrote ${fixed(c.bytes / 2 ** 20, 1)} MiB in ${int(c.saves)} saves for ${int(N)} messages; the naive way writes ${fixed(naiveTotal / 2 ** 30, 2)} GiB.\n`);

  // Save and load time, and bytes stored per message.
  const loadRows = [];
  for (const [name, make, cleanup] of [
    ["memoryStorage", async () => memoryStorage(), async () => {}],
    ["nodeFileStorage", async () => { const dir = await mkdtemp(join(tmpdir(), "am-bench-")); return Object.assign(nodeFileStorage(dir), { dir }); }, async (s) => rm(s.dir, { recursive: true, force: true })],
  ]) {
    const storage = await make();
    const options = { namespace: "bench", model: "gpt-4o", storage };
    const t0 = performance.now();
    const m = await MemoryController.create(options);
    for (const msg of messages) await m.add(msg);
    const save = performance.now() - t0;
    const loads = [];
    for (let i = 0; i < 3; i++) {
      const t1 = performance.now();
      const again = await MemoryController.create(options);
      loads.push(performance.now() - t1);
      if ((await again.history()).length !== N) throw new Error("reload lost messages");
    }
    const bytes = await storedBytes(storage);
    loadRows.push([name, `${int(save)} ms`, `${fixed(N / (save / 1000), 0)}/s`, `${int(median(loads))} ms`, kib(bytes), int(bytes / N)]);
    await cleanup(storage);
  }
  out.push(`### Saving and loading ${int(N)} messages\n`);
  out.push("Save: every message added (and awaited) one by one, with compaction and folding as they happen. Load: `MemoryController.create` on the stored namespace (median of 3), which decodes, verifies checksums and rebuilds working memory, archive and episodes.\n");
  out.push(table(["adapter", "save (add all)", "adds per second", "load", "stored", "bytes per message"], loadRows));
  out.push("\nFacts with embeddings are not persisted yet (semantic memory lands with the retrieval issue), so they are not in this table.");
  return out.join("\n");
}

if (isMain(import.meta.url)) console.log(await run());
