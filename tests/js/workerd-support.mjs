// What the test Workers share (imported inside workerd, so it imports
// nothing): answers as JSON with failures as { error }, and the Durable
// Object classes that run a test over their own storage, one per backend.

/** `fn()`'s value as a JSON response; a throw becomes { error: stack }. */
export async function answer(fn) {
  try {
    return Response.json(await fn());
  } catch (e) {
    return Response.json({ error: String(e.stack ?? e) });
  }
}

/**
 * A Durable Object class answering `run(ctx.storage, request)`. Export it
 * (as `Name`) and a subclass `NameSql` for the SQLite backend; testWorker
 * (harness.mjs) binds them as DO and DOSQL.
 */
export function storageObject(run) {
  return class {
    constructor(ctx) {
      this.ctx = ctx;
    }
    fetch(request) {
      return answer(() => run(this.ctx.storage, request));
    }
  };
}

/** Hands `request` to the object named `name`: on DOSQL for paths under /do-sql, else on DO. */
export function toObject(request, env, name) {
  const ns = /^\/do-sql(\/|$)/.test(new URL(request.url).pathname) ? env.DOSQL : env.DO;
  return ns.get(ns.idFromName(name)).fetch(request);
}
