// A remote MCP memory server on Cloudflare Workers: one Durable Object per
// user holds that user's memory, served over Streamable HTTP at
//   POST /u/:user/mcp   (Authorization: Bearer <that user's token>)
// with the tools of agent-memory/mcp: remember, recall, forget, search.
//
// Security model:
// - The host configures the tokens as the secret MCP_TOKENS, a JSON object
//   namespace → token. A token grants exactly one namespace: read and write
//   of that user's memory through the four tools, nothing else.
// - Every request is checked here, in the Worker, before any Durable Object
//   is addressed: no or an unknown token is 401, a token naming another
//   user's path is 403; neither touches storage. The presented token is
//   compared with every configured one in constant time (SHA-256 digests,
//   crypto.subtle.timingSafeEqual, no early exit).
// - The token goes no further: the request reaches the object without its
//   Authorization header, so it is never in memory's storage, never in a
//   tool answer, and this code logs nothing.
import { DurableObject } from "cloudflare:workers";
import { MemoryController, durableObjectStorage } from "agent-memory";
import { createMemoryServer } from "agent-memory/mcp";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";

// User names become Durable Object names and the memory namespace.
const USER = /^[A-Za-z0-9_.@-]{1,64}$/;
const ROUTE = /^\/u\/([^/]+)\/mcp\/?$/;

const fail = (status, code, message, headers = {}) => Response.json({ error: { code, message } }, { status, headers });

export class MemoryObject extends DurableObject {
  // One controller per object instance, opened by the first request and
  // reused; `create` loads the user's records, so a restarted object picks
  // up where it was.
  #memory;

  memory(user) {
    this.#memory ??= MemoryController.create({
      namespace: user,
      model: this.env.MODEL ?? "gpt-4o",
      storage: durableObjectStorage(this.ctx.storage),
    }).catch((e) => {
      this.#memory = undefined; // a failed load is retried by the next request
      throw e;
    });
    return this.#memory;
  }

  async fetch(request) {
    const user = decodeURIComponent(ROUTE.exec(new URL(request.url).pathname)[1]);
    const server = createMemoryServer({
      memory: () => this.memory(user),
      // A retired WebAssembly instance (the runtime stopped a call mid-way,
      // or a trap): the next request opens a fresh one, which reloads.
      onError: (e) => {
        if (e?.code === "INSTANCE_RESET" || e?.code === "INTERNAL") this.#memory = undefined;
      },
    });
    // Stateless: each request is a whole exchange (no session to keep in
    // the object), answered as JSON rather than an event stream.
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    return transport.handleRequest(request);
  }
}

// MCP_TOKENS as [namespace, token] pairs; undefined when it is missing or
// malformed, or gives one token to two users (then no token maps to exactly one).
function configuredTokens(env) {
  let parsed;
  try {
    parsed = JSON.parse(env.MCP_TOKENS ?? "null");
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return undefined;
  const pairs = Object.entries(parsed);
  if (pairs.some(([user, token]) => !USER.test(user) || typeof token !== "string" || token.length < 16)) return undefined;
  if (new Set(pairs.map(([, token]) => token)).size !== pairs.length) return undefined;
  return pairs;
}

const digest = async (text) => crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));

// The namespace the request's bearer token grants, or undefined. Equal-length
// digests make timingSafeEqual applicable and hide the tokens' lengths.
async function grantedNamespace(request, tokens) {
  const m = /^Bearer +(\S+) *$/.exec(request.headers.get("authorization") ?? "");
  if (!m) return undefined;
  const presented = await digest(m[1]);
  let granted;
  for (const [user, token] of tokens) {
    if (crypto.subtle.timingSafeEqual(presented, await digest(token))) granted = user;
  }
  return granted;
}

function safeDecode(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined; // malformed %-escape
  }
}

export default {
  async fetch(request, env) {
    const m = ROUTE.exec(new URL(request.url).pathname);
    if (!m) return fail(404, "NOT_FOUND", "the MCP endpoint is /u/:user/mcp");
    const tokens = configuredTokens(env);
    if (!tokens)
      return fail(500, "NOT_CONFIGURED", "MCP_TOKENS must be a JSON object of user → token (16 characters or more, all different)");
    const granted = await grantedNamespace(request, tokens);
    if (granted === undefined)
      return fail(401, "UNAUTHORIZED", "a valid bearer token is required", { "www-authenticate": 'Bearer realm="agent-memory"' });
    if (safeDecode(m[1]) !== granted) return fail(403, "FORBIDDEN", "this token grants another user's memory");
    // The object named after the user; the token stays here.
    const headers = new Headers(request.headers);
    headers.delete("authorization");
    return env.MEMORY.get(env.MEMORY.idFromName(granted)).fetch(new Request(request, { headers }));
  },
};
