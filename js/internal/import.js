// `memory.importConversations(data, { format, onProgress })`: a user's chat
// history from ChatGPT's or Claude's export, or arrays of OpenAI messages,
// into the namespace, one thread per conversation.
//
// Invariants:
// - Each conversation is written to its own thread (`<format>-<id>`) by a
//   controller opened on the same storage and options, through `addMany`
//   (up to 64 messages saved as one change; a tool result with `add`, after
//   its call): saved before it counts, compacted and summarized as it goes
//   (the summarizer's backlog bounded as for live chat).
// - A message is stored at its original time (the thread's clock reads
//   it), in the conversation's order: the thread's order and times agree.
// - A stored message carries `imported: { from, id }` (the export's id for
//   it; never sent to a model, see wire.rs); the first user message also
//   the conversation's title, which `threads()` shows. A message whose id
//   the thread holds is skipped: importing an export twice, or again after
//   a crash, stores nothing twice and loses nothing. A thread `threads()`
//   lists with the conversation's count and last time is not reopened.
// - An imported thread keeps at most `workingTokens` (default a quarter of
//   workingMemory.maxTokens) in working memory; the rest is archived and
//   summarized as it arrives. Opening any thread reads every thread's
//   working memory, so thousands of imported threads with full ones would
//   make each later open (and each conversation of the import) slower.
// - Input is read one conversation at a time (json-stream.js).
// - A malformed conversation stops the import with a MemoryError naming it
//   and the field; the conversations before it stay imported and the
//   error's `progress` says how far it got.

import { memoryError } from "./errors.js";
import { FORMATS, detectFormat, readConversation } from "./import-formats.js";
import { jsonArrayElements } from "./json-stream.js";

/**
 * Imports `data` into `memory`'s namespace through controllers
 * `create(options)` opens, one per conversation. `base`: the options
 * `memory` was created with.
 */
export async function importConversations(memory, create, base, data, options = {}) {
  if (options === null || typeof options !== "object")
    throw memoryError("INVALID_INPUT", "importConversations: options: expected an object");
  const { format, onProgress } = options;
  const maxTokens = base?.workingMemory?.maxTokens ?? 4000;
  const workingTokens = options.workingTokens ?? Math.min(maxTokens, Math.max(200, Math.floor(maxTokens / 4)));
  if (!Number.isInteger(workingTokens) || workingTokens <= 0)
    throw memoryError("INVALID_INPUT", "importConversations: options.workingTokens: expected a positive integer");
  if (format !== undefined && !FORMATS.includes(format))
    throw memoryError(
      "INVALID_INPUT",
      `importConversations: options.format: expected one of ${FORMATS.join(", ")} (or none, to detect it), got ${JSON.stringify(format)}`,
    );
  if (onProgress !== undefined && typeof onProgress !== "function")
    throw memoryError("INVALID_INPUT", "importConversations: options.onProgress: expected a function");
  if (!base?.storage) {
    throw memoryError(
      "INVALID_INPUT",
      "importConversations writes each conversation to a thread of the namespace: create the controller with a storage adapter (memoryStorage() to keep it in memory)",
    );
  }
  const progress = { conversations: 0, messages: 0, skipped: 0, hidden: 0 };
  let fmt = format;
  let index = 0;
  const listed = new Map((await memory.threads()).map((t) => [t.thread, t]));
  try {
    for await (const raw of conversations(data)) {
      fmt ??= detectFormat(raw);
      if (!fmt)
        throw Object.assign(
          memoryError(
            "INVALID_INPUT",
            `import: conversation ${index}: (conversation): not a ChatGPT, Claude or OpenAI conversation; say options.format`,
          ),
          { conversation: index, field: "(conversation)" },
        );
      const conversation = readConversation(fmt, raw, index);
      const thread = `${fmt}-${conversation.id}`;
      const done = await importOne(
        create,
        { ...base, workingMemory: { ...base.workingMemory, maxTokens: workingTokens } },
        fmt,
        thread,
        conversation,
        listed.get(thread),
      );
      progress.conversations++;
      progress.messages += done.added;
      progress.skipped += done.skipped;
      progress.hidden += conversation.hidden;
      index++;
      await onProgress?.({
        ...progress,
        conversation: {
          index: index - 1,
          id: conversation.id,
          thread,
          title: conversation.title,
          messages: done.added,
          skipped: done.skipped,
        },
      });
    }
  } catch (e) {
    // How far it got: the conversations before this one are stored whole.
    if (e !== null && typeof e === "object") Object.assign(e, { progress: { ...progress, failedAt: index } });
    throw e;
  }
  return { ...progress, format: fmt ?? format };
}

/** Messages saved per `addMany` at most: a few stored values each, compaction between them. */
const BATCH = 64;

/** One conversation into `thread`: what was added and what was there already. */
async function importOne(create, base, from, thread, conversation, listed) {
  const { messages, title } = conversation;
  // Listed with as many messages and the same last time: imported whole
  // before, so not opened at all (a thread the app added to, or a crash
  // left short, is read and completed below).
  if (listed && listed.messages === messages.length && listed.lastAt === messages.at(-1)?.at) return { added: 0, skipped: messages.length };
  if (!listed && messages.length === 0) return { added: 0, skipped: 0 };
  let at = 0;
  const memory = await create({ ...base, thread, clock: () => at });
  try {
    let have = new Set();
    if (listed || memory.stats().messages.total > 0) {
      have = new Set((await memory.history()).map((h) => h.message.imported?.id).filter((id) => typeof id === "string"));
    }
    let added = 0,
      skipped = 0,
      titled = false;
    let batch = [];
    const send = async () => {
      if (batch.length) await memory.addMany(batch);
      added += batch.length;
      batch = [];
    };
    for (const m of messages) {
      const mark = { from, id: m.id };
      if (!titled && m.message.role === "user" && title) {
        mark.title = title;
        titled = true;
      }
      if (have.has(m.id)) {
        skipped++;
        continue;
      }
      const message = { ...m.message, imported: mark };
      if (message.role !== "tool") {
        batch.push({ message, at: m.at });
        if (batch.length >= BATCH) await send();
        continue;
      }
      // A tool result goes after its call, which must be stored first.
      await send();
      at = m.at;
      await memory.add(message);
      added++;
    }
    await send();
    // Closing waits for this thread's compaction and summaries: the
    // summarizer's backlog stays that of one thread at a time.
    await memory.close();
    return { added, skipped };
  } catch (e) {
    await memory.close().catch(() => {});
    throw e;
  } finally {
    memory.free?.();
  }
}

/** The conversations of `data`, one at a time. */
async function* conversations(data) {
  if (Array.isArray(data)) {
    yield* data;
    return;
  }
  if (typeof data === "string" || data instanceof Uint8Array || data instanceof ArrayBuffer || typeof data?.getReader === "function") {
    yield* jsonArrayElements(data);
    return;
  }
  const iterate = data?.[Symbol.asyncIterator] ?? data?.[Symbol.iterator];
  if (typeof iterate !== "function") {
    throw memoryError(
      "INVALID_INPUT",
      "importConversations: data: expected a JSON string or bytes, a ReadableStream, or an (async) iterable of conversations or of text chunks",
    );
  }
  // Chunks of text or bytes go through the JSON reader; objects are conversations.
  const it = iterate.call(data);
  const first = await it.next();
  if (first.done) return;
  const rest = {
    [Symbol.asyncIterator]: () => ({
      next: () => Promise.resolve(it.next()),
      return: (v) => Promise.resolve(it.return?.(v) ?? { done: true, value: v }),
    }),
  };
  const chained = (async function* () {
    yield first.value;
    yield* rest;
  })();
  if (typeof first.value === "string" || first.value instanceof Uint8Array) yield* jsonArrayElements(chained);
  else yield* chained;
}
