// A Cloudflare Worker that keeps one memory per user: each user name maps to
// one Durable Object (`MemoryObject`), which holds a `MemoryController` whose
// records live in that object's own storage. One object per user means every
// user's writes are serialized in one place (no races between requests) and
// users are isolated by construction.
//
// HTTP API (JSON in, JSON out):
//   POST   /u/:user/messages   body: an OpenAI chat message  → { id, tokens, compaction? }
//   GET    /u/:user/context?query=…&maxTokens=…&reserveOutput=…  → { messages, tools, tokens, sections }
//   GET    /u/:user/stats      → stats() plus wasmMemoryBytes (this isolate's wasm memory) and consolidateAt (the alarm, or null)
//   GET    /u/:user/history    → every message with id, timestamp and place
//   POST   /u/:user/facts      body: { key?, text, kind?, tags?, validFrom? }  → { id, kind, superseded? }
//   GET    /u/:user/facts      → the facts and preferences that hold now
//   POST   /u/:user/consolidate → consolidate() now: { merged, superseded, profile?, source?, degraded? }
//   DELETE /u/:user            → forgets everything of this user (storage included)
// Errors: { error: { code, message } }, status 400 for bad input, 422 when the
// context cannot fit, 404 for unknown routes, 500 otherwise.
//
// Summaries: with SUMMARIZER_BASE_URL, SUMMARIZER_MODEL and the secret
// SUMMARIZER_API_KEY set, a cheap model writes episode summaries (and
// consolidates, below) over fetch
// (any OpenAI-compatible endpoint: DeepSeek, OpenAI, ...), in the background;
// without them, or when the model fails, the offline extractive summary is
// used. The key lives in the Worker's secrets, never in memory's storage.
//
// Consolidation while idle: every write (re)sets the object's alarm to
// CONSOLIDATE_AFTER_MS (default 10 minutes) later, so it fires once the user
// has been quiet that long; alarm() then calls consolidate(): duplicates
// merged, contradictions resolved, the pinned profile rewritten, by the
// summarizer model when one is set (else, or when it fails, offline).
import { DurableObject } from "cloudflare:workers";
import { MemoryController, durableObjectStorage, openAICompatibleSummarizer, wasmMemoryBytes } from "agent-memory";

function summarizer(env) {
  if (!env.SUMMARIZER_BASE_URL || !env.SUMMARIZER_MODEL) return undefined;
  return openAICompatibleSummarizer({
    baseURL: env.SUMMARIZER_BASE_URL,
    apiKey: env.SUMMARIZER_API_KEY,
    model: env.SUMMARIZER_MODEL,
    timeoutMs: 20_000,
  });
}

const CONSOLIDATE_AFTER_MS = 10 * 60_000;
// Whose memory the object holds, for alarm(), which gets no request. Beside
// the memory's own records, whose names start with the user name.
const USER_KEY = "#user";

function idleMs(env) {
  const ms = Number(env.CONSOLIDATE_AFTER_MS ?? CONSOLIDATE_AFTER_MS);
  return Number.isFinite(ms) && ms >= 0 ? ms : CONSOLIDATE_AFTER_MS;
}

// User names become Durable Object names and the memory namespace (a storage
// key prefix): keep them short and printable.
const USER = /^[A-Za-z0-9_.@-]{1,64}$/;
const BAD_INPUT = new Set([
  "INVALID_INPUT",
  "INVALID_ROLE",
  "INVALID_CONTENT",
  "LONE_SURROGATE",
  "TOOL_RESULT_WITHOUT_CALL",
  "INVALID_TOOL_SCHEMA",
  "INVALID_JSON",
]);

const json = (body, status = 200) => Response.json(body, { status });
const fail = (status, code, message) => json({ error: { code, message } }, status);

function errorResponse(e) {
  if (e?.name !== "MemoryError") return fail(500, "INTERNAL", String(e?.message ?? e));
  const status = BAD_INPUT.has(e.code) ? 400 : e.code === "CONTEXT_OVERFLOW" ? 422 : 500;
  return fail(status, e.code, e.message);
}

async function body(request) {
  try {
    return await request.json();
  } catch {
    throw Object.assign(new Error("the request body is not JSON"), { name: "MemoryError", code: "INVALID_JSON" });
  }
}

// A non-negative integer query parameter, or undefined when absent.
function intParam(url, name) {
  const v = url.searchParams.get(name);
  if (v === null) return undefined;
  if (!/^\d{1,9}$/.test(v))
    throw Object.assign(new Error(`${name} must be a non-negative integer`), { name: "MemoryError", code: "INVALID_INPUT" });
  return Number(v);
}

export class MemoryObject extends DurableObject {
  // One controller per object instance, created on the first request and
  // reused until the runtime evicts the object; `create` loads this user's
  // records from storage, so a restarted object picks up where it was.
  #memory;

  memory(user) {
    this.#memory ??= MemoryController.create({
      namespace: user,
      model: this.env.MODEL ?? "gpt-4o",
      workingMemory: { maxTokens: 4000 },
      storage: durableObjectStorage(this.ctx.storage),
      summarizer: summarizer(this.env),
    }).catch((e) => {
      this.#memory = undefined; // a failed load is retried by the next request
      throw e;
    });
    return this.#memory;
  }

  // After a write: consolidate once the user has been idle for CONSOLIDATE_AFTER_MS.
  async wrote(user) {
    if (this.#user !== user) {
      await this.ctx.storage.put(USER_KEY, user);
      this.#user = user;
    }
    await this.ctx.storage.setAlarm(Date.now() + idleMs(this.env));
  }
  #user;

  async alarm() {
    const user = await this.ctx.storage.get(USER_KEY);
    if (typeof user !== "string") return; // forgotten since the write
    try {
      await (await this.memory(user)).consolidate();
    } catch (e) {
      if (e?.code === "INSTANCE_RESET" || e?.code === "INTERNAL") this.#memory = undefined;
      throw e; // the runtime retries the alarm, with backoff; a consolidation may run again
    }
  }

  async fetch(request) {
    const url = new URL(request.url);
    const [, , user, route = ""] = url.pathname.split("/"); // "", "u", user, route
    const key = `${request.method} /${route}`;
    try {
      const name = decodeURIComponent(user);
      const memory = await this.memory(name);
      switch (key) {
        case "POST /messages": {
          const added = await memory.add(await body(request));
          await this.wrote(name);
          return json(added);
        }
        case "GET /context":
          return json(
            await memory.buildContext({
              query: url.searchParams.get("query") ?? undefined,
              maxTokens: intParam(url, "maxTokens"),
              reserveOutput: intParam(url, "reserveOutput"),
            }),
          );
        case "GET /stats":
          return json({ ...memory.stats(), wasmMemoryBytes: wasmMemoryBytes(), consolidateAt: await this.ctx.storage.getAlarm() });
        case "GET /history":
          return json(await memory.history());
        case "POST /facts": {
          const remembered = await memory.remember(await body(request));
          await this.wrote(name);
          return json(remembered);
        }
        case "GET /facts":
          return json(await memory.facts());
        case "POST /consolidate":
          return json(await memory.consolidate());
        case "DELETE /": {
          const forgotten = await memory.forget({ namespace: true });
          await this.ctx.storage.deleteAlarm();
          await this.ctx.storage.delete(USER_KEY);
          this.#user = undefined;
          return json(forgotten);
        }
        default:
          return fail(404, "NOT_FOUND", `no route ${key}`);
      }
    } catch (e) {
      // The WebAssembly instance under the controller was retired (INSTANCE_RESET: the runtime
      // stopped a call mid-way, here or in another object of this isolate; INTERNAL: a trap).
      // The next request opens a fresh one, which reloads this user's records.
      if (e?.code === "INSTANCE_RESET" || e?.code === "INTERNAL") this.#memory = undefined;
      return errorResponse(e);
    }
  }
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
    const url = new URL(request.url);
    const m = /^\/u\/([^/]+)(\/[a-z]+)?\/?$/.exec(url.pathname);
    if (!m) return fail(404, "NOT_FOUND", "routes live under /u/:user");
    const user = safeDecode(m[1]);
    if (user === undefined || !USER.test(user)) return fail(400, "INVALID_USER", "a user name is 1–64 characters of A–Z a–z 0–9 _ . @ -");
    // The object named after the user; the request goes to it unchanged.
    return env.MEMORY.get(env.MEMORY.idFromName(user)).fetch(request);
  },
};
