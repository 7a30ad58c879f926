// Pieces both endpoints of the fake server share: the API's error shape,
// ids, a rough token estimate for unscripted usage, SSE framing, and the
// checks every request field goes through.

/** An HTTP error answered as OpenAI answers it: `{ error: { message, type, param, code } }`. */
export class ApiError extends Error {
  constructor(message, { status = 400, type = "invalid_request_error", param = null, code = null } = {}) {
    super(message);
    Object.assign(this, { status, type, param, code });
  }
  get body() {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** Calls `done(raw, body)` once a request's body has arrived; `body` is its JSON, or undefined. */
export function onBody(req, done) {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const raw = Buffer.concat(chunks).toString("utf8");
    let body;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    done(raw, body);
  });
}

/** Throws a 400 unless `ok`. */
export function check(ok, message, opts) {
  if (!ok) throw new ApiError(message, opts);
}

export const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * Ids: `prefix` plus a per-server counter, padded to the length of the real
 * ones (`chatcmpl-…`, `call_…`, `resp_…`, `msg_…`, `rs_…`, `fc_…`).
 */
export function idMaker() {
  let n = 0;
  return (prefix, width = 24) => `${prefix}${(++n).toString(36).padStart(width, "0")}`;
}

/** A UUID-shaped id, as DeepSeek's completion ids are. */
export const uuidOf = (id) => {
  const hex = Buffer.from(id).toString("hex").padEnd(32, "0").slice(-32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

/** Not a tokenizer: a stable stand-in (4 characters a token) when a turn scripts no usage. */
export const roughTokens = (value) => {
  const s = typeof value === "string" ? value : JSON.stringify(value ?? "");
  return Math.ceil(s.length / 4);
};

/** The dated snapshot the real API names in `model` for an alias (it never echoes the alias). */
const SNAPSHOTS = {
  "gpt-4o": "gpt-4o-2024-08-06",
  "gpt-4o-mini": "gpt-4o-mini-2024-07-18",
  "gpt-4.1": "gpt-4.1-2025-04-14",
  "gpt-4.1-mini": "gpt-4.1-mini-2025-04-14",
  "gpt-5": "gpt-5-2025-08-07",
  "gpt-5-mini": "gpt-5-mini-2025-08-07",
  o3: "o3-2025-04-16",
  "o4-mini": "o4-mini-2025-04-16",
};
export const snapshotOf = (model) => SNAPSHOTS[model] ?? model;

/** Splits text into the small pieces a stream sends (a word and its space each). */
export const pieces = (text) => (text ? text.match(/\S+\s*|\s+/g) : []);

/** Arguments as the model sends them: a JSON string. */
export const argumentsOf = (args) => (typeof args === "string" ? args : JSON.stringify(args ?? {}));

/** Writes one SSE event; `event` names it (the Responses stream does, chat does not). */
export function sse(res, data, event) {
  res.write(`${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
}

/**
 * Rejects fields of `obj` not in `allowed`, as OpenAI's chat validator words it:
 * "Additional properties are not allowed ('x' was unexpected) - 'messages.2'".
 */
export function onlyFields(obj, allowed, where) {
  const extra = Object.keys(obj).filter((k) => !allowed.includes(k));
  if (extra.length === 0) return;
  const names = extra.map((k) => `'${k}'`).join(", ");
  throw new ApiError(`Additional properties are not allowed (${names} ${extra.length === 1 ? "was" : "were"} unexpected) - '${where}'`);
}

/** Rejects fields of `obj` not in `allowed`, as the Responses API words it. */
export function knownParameters(obj, allowed, where) {
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) {
      const param = where ? `${where}.${k}` : k;
      throw new ApiError(`Unknown parameter: '${param}'.`, { param, code: "unknown_parameter" });
    }
  }
}

/** Missing or wrongly typed required values, worded as the API words them. */
export function required(obj, key, type, where) {
  const param = where ? `${where}.${key}` : key;
  check(obj[key] !== undefined, `Missing required parameter: '${param}'.`, { param, code: "missing_required_parameter" });
  const ok = type === "array" ? Array.isArray(obj[key]) : type === "object" ? isObject(obj[key]) : typeof obj[key] === type;
  check(
    ok,
    `Invalid type for '${param}': expected ${type === "array" ? "an array" : type === "object" ? "an object" : `a ${type}`}, but got ${describeType(obj[key])} instead.`,
    { param, code: "invalid_type" },
  );
}

export const describeType = (v) => (v === null ? "null" : Array.isArray(v) ? "an array" : `a ${typeof v}`);

/** One of `values`, or the API's "Invalid value" error naming the supported ones. */
export function oneOf(value, values, param) {
  if (values.includes(value)) return;
  const list = values.map((v) => `'${v}'`);
  const supported = list.length > 1 ? `${list.slice(0, -1).join(", ")}, and ${list.at(-1)}` : list[0];
  throw new ApiError(`Invalid value: '${value}'. Supported values are: ${supported}.`, { param, code: "invalid_value" });
}
