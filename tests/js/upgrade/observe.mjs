// What the current package reports over data 0.1.0 wrote, in any runtime
// (Node, a Chromium page, workerd): it imports nothing and returns plain
// JSON-able values, so a page or a Worker can hand them to the Node test,
// which compares them with tests/fixtures/v0.1.0/expected.json (compare.mjs).
//
// Three opens of the same storage: the first reads 0.1.0's data (and, once
// the format changes, upgrades it); the second reads whatever the first left
// behind, so an upgrade that rewrote the data must load the same again; it
// then adds a message, and the third open shows that message after all of
// 0.1.0's and builds a context. Every controller is closed, as an app that
// shuts down cleanly does.

// The options 0.1.0's fixture was written with (generate.mjs), minus its clock and embedder.
const FIXTURE_OPTIONS = { namespace: "user-42", model: "gpt-4o", workingMemory: { maxTokens: 400 }, foldAfter: 24 };
const FACT_KEYS = ["allergy", "home"]; // the keys expected.json has the history of
/** The message this version adds after opening 0.1.0's data. */
export const ADDED = "新版本的第一条消息";

// Reads change nothing stored; buildContext does (it marks the episodes it
// recalls), so only the last open builds one, after everything was read.
async function state(memory, withContext = false) {
  const { cost, embeddings } = memory.stats();
  const factHistory = {};
  for (const key of FACT_KEYS) factHistory[key] = await memory.factHistory(key);
  const out = {
    corrupt: memory.loadReport().corrupt,
    history: (await memory.history()).map(({ id, ts, place, message }) => ({ id, ts, place, message })),
    episodes: await memory.episodes(),
    facts: await memory.facts(),
    factHistory,
    cost,
    embeddings,
  };
  if (withContext) {
    const ctx = await memory.buildContext({ maxTokens: 3000 });
    out.context = { procedures: ctx.sections.procedures, text: JSON.stringify(ctx.messages), tool: ctx.tools?.[0]?.function?.name ?? null };
  }
  return out;
}

/** One open of `storage` with the fixture's options (and `extra`), as a crashing process makes it. */
export function openFixture(MemoryController, storage, extra = {}) {
  return MemoryController.create({ ...FIXTURE_OPTIONS, ...extra, storage });
}

/** Opens `storage()` (a fresh adapter each time, as a restarted process gets) three times. */
export async function observeUpgrade(MemoryController, storage) {
  const opens = [];
  let memory = await MemoryController.create({ ...FIXTURE_OPTIONS, storage: await storage() });
  opens.push(await state(memory));
  await memory.close();
  memory = await MemoryController.create({ ...FIXTURE_OPTIONS, storage: await storage() });
  opens.push(await state(memory));
  const added = await memory.add({ role: "user", content: ADDED });
  await memory.close();
  memory = await MemoryController.create({ ...FIXTURE_OPTIONS, storage: await storage() });
  opens.push(await state(memory, true));
  await memory.close();
  return { opens, added: added.id };
}
