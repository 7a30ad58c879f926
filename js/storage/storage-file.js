// Node filesystem adapter: one file per key under `dir`, written atomically.
//
// Layout: each key segment but the last is a directory, the last is a file
// with a ".v" suffix, so ["ns","log","42"] is `dir/ns/log/42.v` and a prefix
// range is one file plus one subtree. Segment names keep [a-z0-9_-] and
// escape everything else as %XX (UTF-8) or %uXXXX (lone surrogate): the
// result never holds ".", "/", "\" or an upper-case letter, so it is
// injective even on case-insensitive file systems, cannot climb out of `dir`
// (".." is "%2E%2E"), and never collides with the ".v" suffix or with temp
// files (which start with "."). The empty segment is "%"; Windows device
// names (con, nul, com1, ...) get their first letter escaped.
// Limit: an escaped segment may be at most 238 bytes, so that its temp file
// name (17 bytes more) fits the usual 255-byte name limit: 238 lowercase
// ASCII letters or 26 CJK characters; longer fails STORAGE_KEY_TOO_LONG.
//
// Writes: temp file in the target's directory → write → fsync → rename over
// the target → fsync the directory (and the parents of directories it had to
// create). Readers see the old file or the new one, never a torn one; the
// last rename wins. A crash leaves at most a ".<name>.v.<random>.tmp" file, which
// reads ignore and removeRange over its directory deletes.
// `dir` belongs to the adapter: removeRange([]) empties it.
import { mkdir, open, readFile, readdir, rename, rm, unlink } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { dirname, join, resolve } from "node:path";
import { checkKey, copyBytes, escapeSegment, guard, mapLimit, unescapeSegment } from "./storage-shared.js";
import { memoryError } from "../internal/errors.js";

const MAX_SEGMENT = 238;
const DEVICE = /^(con|prn|aux|nul|com\d|lpt\d)$/;
const keepSafe = (ch) => /^[a-z0-9_-]$/.test(ch);
// Directory fsync is not possible everywhere (Windows, some network file systems).
const NO_DIR_SYNC = new Set(["EISDIR", "EPERM", "EINVAL", "EBADF", "ENOTSUP", "EACCES"]);

function segmentName(s) {
  if (s === "") return "%";
  let name = escapeSegment(s, keepSafe);
  if (DEVICE.test(name)) name = escapeSegment(name[0], () => false) + name.slice(1);
  if (name.length > MAX_SEGMENT) {
    throw memoryError("STORAGE_KEY_TOO_LONG", `key segment escapes to ${name.length} bytes, the file adapter allows ${MAX_SEGMENT}`);
  }
  return name;
}

const segmentOf = (name) => (name === "%" ? "" : unescapeSegment(name));

/**
 * @param {string} dir the directory that holds the files (created on first save)
 * @returns {import("../storage.js").StorageAdapter}
 */
export function nodeFileStorage(dir) {
  if (typeof dir !== "string" || dir === "") throw memoryError("INVALID_INPUT", "nodeFileStorage(dir) needs a directory path");
  const root = resolve(dir);
  // The directory of a key's file (or of a prefix's subtree) and the file name.
  const locate = (key) => {
    const names = key.map(segmentName);
    const last = names.pop();
    return { parent: join(root, ...names), base: last, file: join(root, ...names, `${last}.v`) };
  };

  const guarded = guard("nodeFileStorage", (e, what) =>
    e?.code === "ENAMETOOLONG" ? memoryError("STORAGE_KEY_TOO_LONG", `nodeFileStorage ${what}: path too long`, e) : undefined,
  );

  async function load(key) {
    checkKey(key);
    try {
      return ownBytes(await readFile(locate(key).file));
    } catch (e) {
      if (e.code === "ENOENT" || e.code === "ENOTDIR") return undefined;
      throw e;
    }
  }

  async function save(key, data) {
    checkKey(key);
    const bytes = copyBytes(data); // the write is async: the caller may reuse its array meanwhile
    const { parent, base, file } = locate(key);
    // A concurrent removeRange may delete `parent` under us (ENOENT), or a
    // random temp name may already exist (EEXIST): start over.
    for (let attempt = 0; ; attempt++) {
      try {
        const created = await mkdir(parent, { recursive: true });
        await writeAtomically(parent, base, file, bytes);
        await syncCreated(parent, created);
        return;
      } catch (e) {
        if ((e.code !== "ENOENT" && e.code !== "EEXIST") || attempt >= 10) throw e;
      }
    }
  }

  async function remove(key) {
    checkKey(key);
    const { parent, file } = locate(key);
    try {
      await unlink(file);
    } catch (e) {
      if (e.code === "ENOENT" || e.code === "ENOTDIR") return;
      throw e;
    }
    await syncDir(parent);
  }

  // A prefix no key can have (a segment too long to store) has an empty range.
  const storable = (prefix) => {
    try {
      prefix.forEach(segmentName);
      return true;
    } catch {
      return false;
    }
  };

  async function loadRange(prefix) {
    checkKey(prefix, true);
    if (!storable(prefix)) return [];
    const found = [];
    if (prefix.length === 0) {
      await walk(root, [], found);
    } else {
      const { parent, base, file } = locate(prefix);
      found.push({ key: [...prefix], path: file });
      await walk(join(parent, base), [...prefix], found);
    }
    const loaded = await mapLimit(found, 16, async ({ key, path }) => {
      try {
        return { key, data: ownBytes(await readFile(path)) };
      } catch (e) {
        if (e.code === "ENOENT" || e.code === "ENOTDIR") return undefined; // removed meanwhile, or never there
        throw e;
      }
    });
    return loaded.filter(Boolean);
  }

  async function removeRange(prefix) {
    checkKey(prefix, true);
    if (!storable(prefix)) return;
    if (prefix.length === 0) {
      const names = await readdir(root).catch((e) => (e.code === "ENOENT" ? [] : Promise.reject(e)));
      await Promise.all(names.map((n) => rmRetry(join(root, n))));
      await syncDir(root);
      return;
    }
    const { parent, base, file } = locate(prefix);
    const temps = (await readdir(parent).catch(() => [])).filter((n) => n.startsWith(`.${base}.v.`));
    await Promise.all([rmRetry(file), rmRetry(join(parent, base)), ...temps.map((n) => rmRetry(join(parent, n)))]);
    await syncDir(parent);
  }

  // Directory entries under `dirPath` that are values: "<name>.v" files, and
  // directories recursed into; dot-files (temp files) are skipped.
  async function walk(dirPath, keyPrefix, out) {
    let entries;
    try {
      entries = await readdir(dirPath, { withFileTypes: true });
    } catch (e) {
      if (e.code === "ENOENT" || e.code === "ENOTDIR") return;
      throw e;
    }
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      const path = join(dirPath, entry.name);
      if (entry.isDirectory()) await walk(path, [...keyPrefix, segmentOf(entry.name)], out);
      else if (entry.isFile() && entry.name.endsWith(".v")) out.push({ key: [...keyPrefix, segmentOf(entry.name.slice(0, -2))], path });
    }
  }

  // fsync the parents of every directory mkdir created (parent itself is synced after the rename).
  async function syncCreated(parent, created) {
    if (!created) return;
    for (let d = dirname(parent); ; d = dirname(d)) {
      await syncDir(d);
      if (d.length < created.length || d === dirname(d)) return;
    }
  }

  return {
    load: guarded("load", load),
    save: guarded("save", save),
    remove: guarded("remove", remove),
    loadRange: guarded("loadRange", loadRange),
    removeRange: guarded("removeRange", removeRange),
  };
}

// A plain Uint8Array over the Buffer's memory; copied if the Buffer is a
// slice of Node's shared pool, whose other bytes the caller must not see.
function ownBytes(buf) {
  if (buf.byteOffset === 0 && buf.buffer.byteLength === buf.byteLength) return new Uint8Array(buf.buffer);
  return new Uint8Array(buf);
}

async function writeAtomically(parent, base, file, bytes) {
  const temp = join(parent, `.${base}.v.${randomBytes(4).toString("hex")}.tmp`);
  const fh = await open(temp, "wx");
  try {
    try {
      await fh.writeFile(bytes);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(temp, file);
  } catch (e) {
    await rm(temp, { force: true }).catch(() => {});
    throw e;
  }
  await syncDir(parent);
}

async function syncDir(path) {
  let fh;
  try {
    fh = await open(path, "r");
    await fh.sync();
  } catch (e) {
    if (!NO_DIR_SYNC.has(e.code) && e.code !== "ENOENT") throw e;
  } finally {
    await fh?.close();
  }
}

// rm -r, retried when a concurrent save adds an entry while the tree is being removed.
async function rmRetry(path) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await rm(path, { recursive: true, force: true });
    } catch (e) {
      if (e.code !== "ENOTEMPTY" || attempt >= 10) throw e;
    }
  }
}
