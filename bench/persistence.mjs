// Persistence: bytes written per add() on a 10,000-message history, side by
// side with what a naive chat does (JSON.stringify of the whole history into
// one key on every turn); then save and load of 10,000 messages, in memory
// and on disk, with bytes stored per message.
//
//   node bench/persistence.mjs
//
// Ours writes one checksummed record per message and folds the log into a
// new bounded segment once it holds a quarter of the segment size, so the
// bytes per add stay flat while the naive rewrite grows with the history.

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
  return {
    c,
    adapter: {
      ...inner,
      save: async (k, d) => {
        c.bytes += d.length;
        c.saves++;
        return inner.save(k, d);
      },
    },
  };
}

async function storedBytes(storage) {
  return (await storage.loadRange([])).reduce((n, e) => n + e.data.length, 0);
}

/** A deterministic 384-dim embedder (no model): hashed character trigrams. */
function fakeEmbedder(dim = 384) {
  return async (texts) =>
    texts.map((t) => {
      const v = new Float32Array(dim);
      for (let i = 0; i + 2 < t.length; i++) v[(t.charCodeAt(i) * 31 + t.charCodeAt(i + 1) * 7 + t.charCodeAt(i + 2)) % dim] += 1;
      v[0] += 0.01;
      return v;
    });
}

/** 10,000 messages plus 10,000 facts, every item with a 384-dim embedding: save, load, bytes. */
async function factsWithEmbeddings() {
  const messages = history(N).slice(1);
  const storage = memoryStorage();
  const options = { namespace: "bench-facts", model: "gpt-4o", storage, embedder: fakeEmbedder() };
  const t0 = performance.now();
  const memory = await MemoryController.create(options);
  for (const m of messages) await memory.add(m);
  // Each remember is compared with every live fact (contradictions): the
  // first and the last thousand, timed apart, show what that costs as facts grow.
  const tenth = Math.min(1000, N);
  const remembering = { first: 0, last: 0 };
  for (let i = 0; i < N; i++) {
    const r0 = performance.now();
    await memory.remember({
      text: `Fact ${i}: customer ${i % 977} prefers delivery on ${["Monday", "周三", "Friday"][i % 3]}, order #${100000 + i}`,
    });
    const dt = performance.now() - r0;
    if (i < tenth) remembering.first += dt;
    if (i >= N - tenth) remembering.last += dt;
  }
  // Embedding is lazy (before a search): search until every item has a vector.
  let searches = 0;
  for (let before = -1; searches < 200 && memory.stats().embeddings !== before; searches++) {
    before = memory.stats().embeddings;
    await memory.search("delivery preference");
  }
  const save = performance.now() - t0;
  // Facts include the preferences compaction learned from the messages.
  const facts = (await memory.facts()).length;
  const loads = [];
  for (let i = 0; i < 3; i++) {
    const t1 = performance.now();
    const again = await MemoryController.create(options);
    loads.push(performance.now() - t1);
    if ((await again.facts()).length !== facts || again.stats().embeddings !== memory.stats().embeddings)
      throw new Error("reload lost facts or vectors");
  }
  const bytes = await storedBytes(storage);
  return [
    `### ${int(N)} messages plus ${int(N)} facts, every item with a 384-dim embedding\n`,
    "Deterministic 384-dim vectors from a local function (no model). Save: add every message, remember every fact, then search until everything is embedded (vectors are stored as records, 64 per embedder call). Remember: the mean time of one `remember` over the first and the last thousand facts (each is compared with every live fact). Load: `create` on the stored namespace (median of 3); the BM25 and vector indexes are built by the first search, not here.\n",
    table(
      ["items", "embedded", "save (add + remember + embed)", "remember, first / last thousand", "load", "stored", "bytes per item"],
      [
        [
          int(2 * N),
          int(memory.stats().embeddings),
          `${int(save)} ms`,
          `${fixed(remembering.first / tenth, 2)} / ${fixed(remembering.last / tenth, 2)} ms`,
          `${int(median(loads))} ms`,
          kib(bytes),
          int(bytes / (2 * N)),
        ],
      ],
    ),
  ].join("\n");
}

export async function run() {
  const messages = history(N).slice(1);
  const out = [];

  // Bytes per add at three history sizes: ours vs the naive full rewrite.
  const { c, adapter } = counting(memoryStorage());
  const memory = await MemoryController.create({ namespace: "bench", model: "gpt-4o", storage: adapter });
  const marks = new Map([
    [1000, null],
    [5000, null],
    [N, null],
  ]);
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
      rows.push([
        int(i + 1),
        int((c.bytes - last.bytes) / (i + 1 - last.n)),
        int(naiveJson),
        fixed(naiveJson / ((c.bytes - last.bytes) / (i + 1 - last.n)), 0) + "×",
      ]);
      last = { bytes: c.bytes, n: i + 1 };
    }
  }
  out.push("## Persistence: bytes written per `add()`\n");
  out.push(
    `${int(N)} messages of the benchmark history (bench/history.mjs) added one by one through \`memoryStorage\`, counting every byte passed to \`save\` (records, episodes, segments). Naive: \`JSON.stringify(history)\` saved whole on every turn, as a localStorage chat typically does.\n`,
  );
  out.push(table(["history size", "ours: bytes per add (mean since previous row)", "naive: bytes per add", "ratio"], rows));
  out.push(
    `\nIn total ours wrote ${fixed(c.bytes / 2 ** 20, 1)} MiB in ${int(c.saves)} saves for ${int(N)} messages; the naive way writes ${fixed(naiveTotal / 2 ** 30, 2)} GiB.\n`,
  );

  // Save and load time, and bytes stored per message.
  const loadRows = [];
  for (const [name, make, cleanup] of [
    ["memoryStorage", async () => memoryStorage(), async () => {}],
    [
      "nodeFileStorage",
      async () => {
        const dir = await mkdtemp(join(tmpdir(), "am-bench-"));
        return Object.assign(nodeFileStorage(dir), { dir });
      },
      async (s) => rm(s.dir, { recursive: true, force: true }),
    ],
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
  out.push(
    "Save: every message added (and awaited) one by one, with compaction and folding as they happen. Load: `MemoryController.create` on the stored namespace (median of 3), which decodes, verifies checksums and rebuilds working memory, archive and episodes.\n",
  );
  out.push(table(["adapter", "save (add all)", "adds per second", "load", "stored", "bytes per message"], loadRows));
  out.push(await factsWithEmbeddings());
  return out.join("\n");
}

if (isMain(import.meta.url)) console.log(await run());
