// importConversations of a generated ChatGPT export of 100,000 messages
// (2,000 conversations of 50 on average), read from a file as a stream,
// through memoryStorage and nodeFileStorage:
//
//   node bench/import.mjs                       (100,000 messages, both adapters)
//   BENCH_IMPORT_MESSAGES=10000 node bench/import.mjs
//
// The export: bench/history.mjs's user and assistant messages (its tool
// groups left out), cut into conversations of 10 to 90 messages, each a
// ChatGPT `mapping` tree with a hidden system root and, every tenth
// answer, a regenerated sibling that is not on the `current_node` path
// (so the file holds more than is imported). Each adapter runs in its own
// Node process (memory figures start clean), with the default options
// (working memory 4,000 tokens, offline summaries). Figures: messages
// stored per second of the whole call; peak resident memory of the process
// (`maxRSS`) above what it held with the controller opened, against the
// file's size (the reader holds one conversation at a time), and the wasm
// memory after; a second import of the same file (stores nothing).

import { spawnSync } from "node:child_process";
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { history } from "./history.mjs";
import { OURS, fixed, int, isMain, mib, table, verdict } from "./lib.mjs";

const MESSAGES = Number(process.env.BENCH_IMPORT_MESSAGES) || 100_000;
const HERE = fileURLToPath(import.meta.url);
const T0 = 1_600_000_000; // seconds: 2020-09-13

/** Writes the export of `count` imported messages to `file`; resolves to the conversations written. */
async function writeExport(file, count) {
  const all = history(Math.ceil(count * 1.4)).filter((m) => (m.role === "user" || m.role === "assistant") && typeof m.content === "string");
  const out = createWriteStream(file);
  const write = async (s) => out.write(s) || once(out, "drain");
  await write("[");
  let at = 0,
    c = 0,
    t = T0;
  while (at < count) {
    const size = Math.min(count - at, 10 + ((c * 37) % 81));
    const id = `conv-${c}`;
    const mapping = { root: { id: "root", message: null, parent: null, children: ["sys"] } };
    mapping.sys = {
      id: "sys",
      message: {
        id: "sys",
        author: { role: "system" },
        create_time: null,
        content: { content_type: "text", parts: [""] },
        metadata: { is_visually_hidden_from_conversation: true },
        recipient: "all",
      },
      parent: "root",
      children: [],
    };
    let parent = "sys";
    for (let i = 0; i < size; i++) {
      const m = all[(at + i) % all.length];
      const role = i % 2 ? "assistant" : "user";
      const node = `${id}-${i}`;
      t += 20 + (i % 7) * 13;
      const message = (nid, text) => ({
        id: nid,
        author: { role },
        create_time: t,
        content: { content_type: "text", parts: [text] },
        metadata: {},
        recipient: "all",
      });
      mapping[parent].children.push(node);
      if (role === "assistant" && i % 20 === 1) {
        // A regenerated answer: a sibling the user moved away from.
        const alt = `${node}-alt`;
        mapping[alt] = { id: alt, message: message(alt, `(regenerated) ${m.content.slice(0, 200)}`), parent, children: [] };
        mapping[parent].children.unshift(alt);
      }
      mapping[node] = { id: node, message: message(node, m.content), parent, children: [] };
      parent = node;
    }
    const conversation = {
      title: `Conversation ${c}`,
      create_time: T0 + c,
      update_time: t,
      conversation_id: id,
      current_node: parent,
      mapping,
    };
    await write((c ? "," : "") + JSON.stringify(conversation));
    at += size;
    c++;
    t += 3600;
  }
  await write("]");
  out.end();
  await once(out, "finish");
  return c;
}

/** One adapter's run, in this process: prints a JSON line of figures. */
async function child(adapter, file, dir) {
  const { MemoryController, memoryStorage, nodeFileStorage, wasmMemoryBytes } = await import(OURS);
  const storage = adapter === "memoryStorage" ? memoryStorage() : nodeFileStorage(join(dir, "store"));
  const memory = await MemoryController.create({ namespace: "imported", model: "gpt-4o", storage });
  const opened = process.memoryUsage().rss; // the module, the ranks and one controller
  const t0 = performance.now();
  const stamps = [];
  const first = await memory.importConversations(createReadStream(file), {
    format: "chatgpt",
    onProgress: () => stamps.push(performance.now()),
  });
  // Milliseconds per conversation over the first and the last tenth: opening a thread reads every thread's working memory.
  const tenth = Math.max(1, Math.floor(stamps.length / 10));
  const early = (stamps[tenth - 1] - t0) / tenth;
  const late = (stamps.at(-1) - stamps.at(-1 - tenth)) / tenth;
  const seconds = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  const second = await memory.importConversations(createReadStream(file), { format: "chatgpt" });
  const again = (performance.now() - t1) / 1000;
  const threads = (await memory.threads()).length;
  await memory.close();
  console.log(
    JSON.stringify({
      first,
      second,
      seconds,
      early,
      late,
      again,
      threads,
      rss: process.resourceUsage().maxRSS * 1024,
      opened,
      wasm: wasmMemoryBytes(),
      heap: process.memoryUsage().heapUsed,
    }),
  );
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "am-bench-import-"));
  try {
    const file = join(dir, "conversations.json");
    const conversations = await writeExport(file, MESSAGES);
    const bytes = statSync(file).size;
    const rows = [];
    const lines = [];
    for (const adapter of ["memoryStorage", "nodeFileStorage"]) {
      const res = spawnSync(process.execPath, [HERE, "--child", adapter, file, dir], { encoding: "utf8", maxBuffer: 16 << 20 });
      if (res.status !== 0) throw new Error(`${adapter}: ${res.stderr}`);
      const r = JSON.parse(res.stdout.trim().split("\n").at(-1));
      const ok = r.first.messages === MESSAGES && r.second.messages === 0 && r.second.skipped === MESSAGES && r.threads === conversations;
      rows.push([
        adapter,
        int(r.first.messages),
        `${fixed(r.seconds, 1)} s`,
        int(r.first.messages / r.seconds),
        `${int(r.early)} / ${int(r.late)} ms`,
        `${fixed(r.again, 1)} s`,
        mib(r.rss),
        mib(r.wasm),
        ok ? "yes" : "NO",
      ]);
      const grew = r.rss - r.opened;
      lines.push(
        `- ${adapter}: every message stored once, the second import storing none: ${verdict(ok)}; peak resident memory ${mib(grew)} above the opened controller's ${mib(r.opened)}, for a ${mib(bytes)} file (target: less than the file, the reader holding one conversation at a time): ${verdict(grew < bytes)}`,
      );
      rmSync(join(dir, "store"), { recursive: true, force: true });
    }
    console.log(`## Import: a ${int(MESSAGES)}-message ChatGPT export\n`);
    console.log(
      `\`importConversations(createReadStream("conversations.json"))\` of a generated export (${mib(bytes)}, ${int(conversations)} conversations, hidden system nodes and regenerated branches not on the \`current_node\` path) with the default options (offline summaries), each adapter in a fresh process. Messages/s: stored messages over the whole call (parsing, one thread opened and closed per conversation, every add saved, compaction). Per conversation: the mean time of one over the import's first and last tenth (opening a thread reads every thread's working memory, so it grows with the threads stored; imported threads keep \`workingTokens\`, 1,000 here). Again: the same file imported a second time (nothing stored: a thread \`threads()\` lists whole is not reopened). Peak RSS: the process's \`maxRSS\`; wasm: \`wasmMemoryBytes()\` at the end.\n`,
    );
    console.log(
      table(
        [
          "adapter",
          "messages",
          "import",
          "messages/s",
          "per conversation, first / last tenth",
          "again",
          "peak RSS",
          "wasm memory",
          "once each",
        ],
        rows,
      ),
    );
    console.log();
    console.log(lines.join("\n"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  if (process.argv[2] === "--child") await child(process.argv[3], process.argv[4], process.argv[5]);
  else await main();
}
