// The Markdown docs hold together: every relative link of README.md,
// HACKING.md, CHANGELOG.md and docs/**/*.md points at a file that exists
// (and, with a #fragment into a Markdown file, at one of its headings, as
// GitHub slugs them), and the model table of docs/reference/models.md is the
// one in src/models.rs. Links into docs/guides/ files that other branches
// add (listed in PENDING) are allowed until those files exist.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const PENDING = ["docs/guides/redaction.md", "docs/guides/mcp.md", "docs/guides/time-and-consolidation.md", "docs/guides/import.md"];

function documents() {
  const out = ["README.md", "HACKING.md", "CHANGELOG.md"].filter((f) => existsSync(join(root, f)));
  const walk = (dir) => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (e.isDirectory()) walk(`${dir}/${e.name}`);
      else if (e.name.endsWith(".md")) out.push(`${dir}/${e.name}`);
    }
  };
  if (existsSync(join(root, "docs"))) walk("docs");
  return out;
}

/** The text outside fenced blocks. */
function unfenced(text) {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, "");
}

/** The text outside fenced blocks and inline code, where links are links. */
function prose(text) {
  return unfenced(text).replace(/`[^`\n]*`/g, "");
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function anchors(file) {
  const seen = new Map();
  const out = new Set();
  for (const m of unfenced(readFileSync(file, "utf8")).matchAll(/^#{1,6}\s+(.*)$/gm)) {
    const base = slug(m[1].replace(/`/g, ""));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

test("slugs as GitHub makes them", () => {
  assert.equal(slug("The model manages its memory: remember, recall, forget"), "the-model-manages-its-memory-remember-recall-forget");
  assert.equal(slug("Upgrade from 0.1.0"), "upgrade-from-010");
  assert.equal(slug("agent-memory/ai-sdk"), "agent-memoryai-sdk");
});

for (const doc of documents()) {
  test(`${doc}: relative links resolve`, () => {
    const text = readFileSync(join(root, doc), "utf8");
    const broken = [];
    for (const m of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1];
      if (/^[a-z]+:/i.test(target)) continue; // http:, https:, mailto:
      const [path, fragment] = target.split("#");
      const file = path === "" ? join(root, doc) : normalize(join(root, dirname(doc), path));
      const rel = relative(root, file).split("\\").join("/");
      if (rel.startsWith("..")) {
        broken.push(`${target}: outside the repository`);
        continue;
      }
      if (!existsSync(file)) {
        if (!PENDING.includes(rel)) broken.push(`${target}: no ${rel}`);
        continue;
      }
      if (fragment && statSync(file).isFile() && file.endsWith(".md") && !anchors(file).has(fragment)) {
        broken.push(`${target}: no heading #${fragment} in ${rel}`);
      }
    }
    assert.deepEqual(broken, []);
  });
}

test("docs/reference/models.md lists src/models.rs's table", () => {
  const src = readFileSync(join(root, "src/models.rs"), "utf8");
  const start = src.indexOf("pub const MODELS");
  const body = src.slice(start, src.indexOf("];", start));
  const tokenizer = { O200: "o200k_base", CL: "cl100k_base", EST: "estimate" };
  const number = (n) => Number(n.replaceAll("_", "").replaceAll(",", ""));
  const expected = [...body.matchAll(/\("([^"]+)", (m|a)\((?:(O200|CL|EST), )?([\d_]+), ([\d_]+), ([\d.]+), ([\d.]+), ([\d.]+)\)\)/g)].map(
    ([, id, f, t, window, output, input, cached, out]) => [
      id,
      tokenizer[t ?? "EST"],
      number(window),
      number(output),
      number(input),
      number(cached),
      number(out),
      f === "a" ? number(input) * 1.25 : null,
    ],
  );
  assert.ok(expected.length > 30, "the MODELS table was read");
  const doc = readFileSync(join(root, "docs/reference/models.md"), "utf8");
  const rows = [...doc.matchAll(/^\| `([^`]+)` \| (\S+) \| ([\d,]+) \| ([\d,]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| (\S+) \|$/gm)].map(
    ([, id, t, window, output, input, cached, out, write]) => [
      id,
      t,
      number(window),
      number(output),
      number(input),
      number(cached),
      number(out),
      write === "—" ? null : number(write),
    ],
  );
  assert.deepEqual(rows, expected);
});
