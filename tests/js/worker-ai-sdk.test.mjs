// examples/worker-ai-sdk as a user deploys it: bundled by wrangler
// (`deploy --dry-run`, offline) with `agent-memory`, `ai` and
// `@ai-sdk/openai` resolved as npm installs them, then run in workerd by
// miniflare with SQLite-backed Durable Objects persisted to disk, calling
// the fake OpenAI API. The client is the AI SDK's own chat client
// (AbstractChat over DefaultChatTransport, what useChat wraps). Covers: a
// user's memory across turns and across a restart of the runtime, each turn
// stored once (the route passes the whole conversation every time), two
// users isolated, bad requests, the upload size.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DefaultChatTransport } from "ai";
import { bundleWorker, runWorker } from "./harness.mjs";
import { startFakeOpenAI } from "./fake-openai/server.mjs";
import { TestChat, sentTurns } from "./ai-sdk-support.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const example = join(root, "examples", "worker-ai-sdk");
let tmp, bundle, persist, api, mf, uploaded;

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), "am-worker-ai-sdk-"));
  bundle = join(tmp, "bundle");
  persist = join(tmp, "persist");
  // What `npm install` gives the example: its dependencies, and agent-memory linked (`file:../..`).
  const installed = readdirSync(join(root, "node_modules")).filter((e) => !e.startsWith("."));
  uploaded = bundleWorker(example, tmp, bundle, {
    ...Object.fromEntries(installed.map((e) => [e, join(root, "node_modules", e)])),
    "agent-memory": root,
  });
  api = await startFakeOpenAI();
  mf = start();
});

after(async () => {
  await mf?.dispose();
  await api?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

function start() {
  return runWorker(example, bundle, {
    durableObjects: { CHAT: { className: "ChatObject", useSQLite: true } },
    durableObjectsPersist: persist,
    bindings: { OPENAI_API_KEY: api.apiKey, OPENAI_BASE_URL: api.url },
  });
}

// useChat in a browser tab of `user`, talking to the Worker.
const chatOf = (user, messages = []) =>
  new TestChat({
    messages,
    transport: new DefaultChatTransport({
      api: `http://localhost/api/chat?user=${user}`,
      fetch: (url, init) => mf.dispatchFetch(url, init),
    }),
  });
const textOf = (ui) =>
  ui.parts
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("");
const say = async (chat, text) => {
  await chat.sendMessage({ text });
  assert.equal(chat.error, undefined, String(chat.error));
  return textOf(chat.lastMessage);
};

test("a user's chat: memory in the user's Durable Object, each turn once, across a restart; users isolated", async () => {
  api.push("Hello Alice!", "Noted: no peanuts.", "Hi Bob.", "Welcome back: still no peanuts, Alice.");
  const alice = chatOf("alice");
  assert.equal(await say(alice, "Hi, I'm Alice."), "Hello Alice!");
  assert.equal(await say(alice, "I'm allergic to peanuts."), "Noted: no peanuts.");
  const bob = chatOf("bob");
  assert.equal(await say(bob, "Hi, I'm Bob."), "Hi Bob.");
  assert.deepEqual(
    sentTurns(api, 2),
    [
      ["system", "You are a travel assistant. Answer briefly."],
      ["user", "Hi, I'm Bob."],
    ],
    "Bob's memory holds none of Alice's turns",
  );

  // The runtime restarts (a new deploy, an evicted object): the same tab goes on.
  await mf.dispose();
  mf = start();
  assert.equal(await say(alice, "Anything I should remember?"), "Welcome back: still no peanuts, Alice.");
  assert.deepEqual(
    sentTurns(api, 3),
    [
      ["system", "You are a travel assistant. Answer briefly."],
      ["user", "Hi, I'm Alice."],
      ["assistant", "Hello Alice!"],
      ["user", "I'm allergic to peanuts."],
      ["assistant", "Noted: no peanuts."],
      ["user", "Anything I should remember?"],
    ],
    "memory, loaded from the object's storage, holds each turn once",
  );
  assert.deepEqual(api.rejected(), []);
  assert.equal(api.remaining, 0);
});

test("bad requests are refused before any object is touched", async () => {
  const post = (path) => mf.dispatchFetch(`http://localhost${path}`, { method: "POST", body: "{}" });
  assert.equal((await post("/api/chat?user=no%20spaces")).status, 400);
  assert.equal((await post("/api/chat")).status, 400);
  assert.equal((await post("/elsewhere?user=a")).status, 404);
});

test("the bundle, with ai and @ai-sdk/openai, fits Workers Free (3 MB compressed)", () => {
  const [, raw, gzip] = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(uploaded).map(Number);
  assert.ok(gzip < 3 * 1024, `${gzip} KiB gzip (${raw} KiB raw)`);
});
