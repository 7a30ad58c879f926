// examples/mcp-worker, as a user deploys it: bundled by wrangler (`deploy
// --dry-run`, offline) with `agent-memory` linked as npm links `file:../..`
// and the MCP SDK as npm installs it, then run in workerd by miniflare with
// SQLite-backed Durable Objects persisted to disk, and driven over
// Streamable HTTP by the SDK's own client. Covers: tools listed, remember
// then recall across a restart of the runtime, forget refused for another
// user's id, tokens that try to reach another user's memory (refused with
// 401/403, no object created), malformed calls answered with MCP errors.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { bundleWorker, runWorker } from "./harness.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const example = join(root, "examples", "mcp-worker");
// What the host puts in the MCP_TOKENS secret.
const TOKENS = { alice: "alice-token-5f0c9a61d2e84b7f", bob: "bob-token-0b7e3d9c4a1f6e28" };
let tmp, bundle, persist, mf;

const start = () =>
  runWorker(example, bundle, {
    bindings: { MCP_TOKENS: JSON.stringify(TOKENS) },
    durableObjects: { MEMORY: { className: "MemoryObject", useSQLite: true } },
    durableObjectsPersist: persist,
  });

before(() => {
  tmp = mkdtempSync(join(tmpdir(), "am-mcp-worker-"));
  bundle = join(tmp, "bundle");
  persist = join(tmp, "persist");
  bundleWorker(example, tmp, bundle, {
    "agent-memory": root,
    "@modelcontextprotocol/sdk": join(root, "node_modules", "@modelcontextprotocol", "sdk"),
  });
  mf = start();
});

after(async () => {
  await mf?.dispose();
  rmSync(tmp, { recursive: true, force: true });
});

// A remote client's configuration, the guide's block (docs/guides/mcp.md):
// each client connects as it says, with its user and token put in.
const remote = JSON.parse(readFileSync(join(root, "tests", "fixtures", "mcp", "cursor-remote.json"), "utf8")).mcpServers.memory;

/** A client of `user`'s endpoint presenting `token`, its requests dispatched into miniflare. */
async function connect(user, token) {
  const client = new Client({ name: "agent-memory-test", version: "1.0.0" });
  const url = new URL(remote.url.replace("/u/alice/", `/u/${user}/`));
  const headers = Object.fromEntries(Object.entries(remote.headers).map(([k, v]) => [k, v.replace("${env:AGENT_MEMORY_TOKEN}", token)]));
  const transport = new StreamableHTTPClientTransport(url, {
    fetch: (url, init) => mf.dispatchFetch(String(url).replace(/^https:\/\/[^/]+/, "http://localhost"), init),
    requestInit: { headers },
  });
  await client.connect(transport);
  return client;
}

const text = (result) => result.content.map((c) => c.text).join("");
const call = (client, name, args) => client.callTool({ name, arguments: args });
// A request whose params are not a tools/call's: the SDK's schema check
// refuses it before our handler runs, as a JSON-RPC error naming the field
// (code InternalError in SDK 1.32, where InvalidParams would be apt).
const badArguments = (e) =>
  e instanceof McpError && [ErrorCode.InvalidParams, ErrorCode.InternalError].includes(e.code) && /"(arguments|name)"/.test(e.message);
const idIn = (answer) => /Remembered as ([^ .]+)\./.exec(answer)[1];

// The Durable Objects' files on disk: one per object that was ever opened.
const objectFiles = () =>
  readdirSync(persist, { recursive: true })
    .filter((f) => /[0-9a-f]{64}\.sqlite$/.test(f))
    .sort();

// An MCP initialize request as a client sends it first.
const initialize = (path, headers) =>
  mf.dispatchFetch(`http://localhost${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "probe", version: "1" } },
    }),
  });

let aliceId, bobId;

test("tools listed; remember, then recall after the runtime restarted", async () => {
  const alice = await connect("alice", TOKENS.alice);
  assert.deepEqual(
    (await alice.listTools()).tools.map((t) => t.name),
    ["remember", "recall", "forget", "search"],
  );
  aliceId = idIn(text(await call(alice, "remember", { text: "Alice is allergic to peanuts.", key: "allergy" })));
  await alice.close();
  const bob = await connect("bob", TOKENS.bob);
  bobId = idIn(text(await call(bob, "remember", { text: "Bob's locker code is 4417." })));
  await bob.close();

  await mf.dispose();
  mf = start();
  const again = await connect("alice", TOKENS.alice);
  assert.match(
    text(await call(again, "recall", { query: "peanuts allergy" })),
    new RegExp(`\\[${aliceId}\\] allergy: Alice is allergic to peanuts\\.`),
  );
  assert.match(text(await call(again, "search", { query: "peanuts", scope: "thread" })), /allergic to peanuts/);
  await again.close();
});

test("forget is refused for another user's id; that memory is unchanged", async () => {
  const alice = await connect("alice", TOKENS.alice);
  const refused = await call(alice, "forget", { id: bobId });
  assert.equal(refused.isError, true);
  assert.match(text(refused), /refused: .* is not the id of an item remembered in this memory/);
  assert.equal(text(await call(alice, "recall", { query: "locker code" })), "No remembered item matches the query.");
  await alice.close();
  const bob = await connect("bob", TOKENS.bob);
  assert.match(text(await call(bob, "recall", { query: "locker code" })), /Bob's locker code is 4417/);
  await bob.close();
});

test("a token reaches its own user's memory only: 401 without a valid one, 403 for another's, no object touched", async () => {
  const before = objectFiles();
  assert.equal(before.length, 2, "alice's and bob's objects");
  const refusals = [
    ["/u/alice/mcp", {}, 401],
    ["/u/alice/mcp", { authorization: "Bearer " }, 401],
    ["/u/alice/mcp", { authorization: `Basic ${TOKENS.alice}` }, 401],
    ["/u/alice/mcp", { authorization: `Bearer ${TOKENS.alice}x` }, 401],
    ["/u/alice/mcp", { authorization: `Bearer ${TOKENS.alice.slice(0, -1)}` }, 401],
    ["/u/alice/mcp", { authorization: `Bearer ${TOKENS.bob}` }, 403],
    ["/u/carol/mcp", { authorization: `Bearer ${TOKENS.bob}` }, 403],
    ["/u/%61lice/mcp", { authorization: `Bearer ${TOKENS.bob}` }, 403],
    ["/u/bob%2F..%2Falice/mcp", { authorization: `Bearer ${TOKENS.bob}` }, 403],
    ["/u/%E0%A4%A/mcp", { authorization: `Bearer ${TOKENS.bob}` }, 403],
  ];
  for (const [path, headers, status] of refusals) {
    const res = await initialize(path, headers);
    const body = await res.json();
    assert.equal(res.status, status, `${path} ${JSON.stringify(headers)}: ${JSON.stringify(body)}`);
    assert.equal(body.error.code, status === 401 ? "UNAUTHORIZED" : "FORBIDDEN");
    if (status === 401) assert.match(res.headers.get("www-authenticate"), /^Bearer/);
    assert.doesNotMatch(JSON.stringify(body), /token-/, "no token is echoed");
  }
  // The SDK's client with bob's token on alice's endpoint cannot even connect.
  await assert.rejects(connect("alice", TOKENS.bob), (e) => e.code === 403 && /FORBIDDEN/.test(e.message));
  assert.deepEqual(objectFiles(), before, "no Durable Object was opened for a refused request");
  // A percent-encoded path names the same user as the plain one.
  const res = await initialize("/u/%61lice/mcp", { authorization: `Bearer ${TOKENS.alice}` });
  assert.equal(res.status, 200);
});

test("malformed calls are MCP errors, not crashes", async () => {
  const alice = await connect("alice", TOKENS.alice);
  const r = await call(alice, "remember", { text: 42 });
  assert.equal(r.isError, true);
  assert.match(text(r), /must be a string.*Nothing was changed\./);
  await assert.rejects(call(alice, "drop_table", {}), (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams);
  await assert.rejects(
    alice.request({ method: "tools/call", params: { name: "recall", arguments: [1, 2] } }, CallToolResultSchema),
    badArguments,
  );
  const garbage = await mf.dispatchFetch("http://localhost/u/alice/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${TOKENS.alice}` },
    body: "{ not json",
  });
  assert.equal(garbage.status, 400);
  assert.equal((await garbage.json()).error.code, ErrorCode.ParseError);
  assert.match(text(await call(alice, "recall", { query: "peanuts" })), /allergic to peanuts/, "still serving");
  await alice.close();
});

test("without MCP_TOKENS configured every request is refused", async () => {
  const bare = runWorker(example, bundle, { durableObjects: { MEMORY: { className: "MemoryObject", useSQLite: true } } });
  try {
    const res = await bare.dispatchFetch("http://localhost/u/alice/mcp", {
      method: "POST",
      headers: { authorization: `Bearer ${TOKENS.alice}` },
      body: "{}",
    });
    assert.equal(res.status, 500);
    assert.equal((await res.json()).error.code, "NOT_CONFIGURED");
  } finally {
    await bare.dispose();
  }
});
