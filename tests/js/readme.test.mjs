// Every fenced block of README.md and of every Markdown file under docs/
// (and HACKING.md, CHANGELOG.md) is checked, so none can rot. The line
// before a block says how (an HTML comment, invisible on GitHub):
//
//   <!-- readme-test: run NAME -->            run it in Node as an app would
//   <!-- readme-test: covered-by FILE... -->  its lines appear, in order, in
//                                             FILE (a tested example or type file)
//   <!-- readme-test: npm-scripts -->         every `npm run X` / `npm test`
//                                             is a script of package.json
//   <!-- readme-test: text -->                not code (a language-less block only)
//
// A block without a marker fails, as does a NAME without a script or a
// script no block uses. `run` blocks are written to a temporary app whose
// node_modules has `agent-memory` (this repo, through package.json
// `exports`) and the repo's dev dependencies, and run with
// OPENAI_BASE_URL / OPENAI_API_KEY pointing at the fake OpenAI server
// (tests/js/fake-openai/), which answers with the block's scripted turns.
// Each run must exit 0, use every turn, and send only requests the API
// accepts. The scripts live in tests/js/readme/*.mjs, one module per part of
// the README (each exports `blocks`: NAME → { flavour?, script, check? }).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeOpenAI } from "./fake-openai/server.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const MARKER = /^<!--\s*readme-test:\s*(.*?)\s*-->$/;

/** The README's fenced blocks: { line, lang, code, marker }. */
export function readmeBlocks(text) {
  const lines = text.split("\n");
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(/^```(\S*)\s*$/);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && lines[end] !== "```") end++;
    let before = i - 1;
    while (before >= 0 && lines[before].trim() === "") before--;
    const marker = before >= 0 ? (lines[before].trim().match(MARKER)?.[1] ?? null) : null;
    blocks.push({ line: i + 1, lang: open[1], code: lines.slice(i + 1, end).join("\n"), marker });
    i = end;
  }
  return blocks;
}

/** README.md, HACKING.md, CHANGELOG.md and every .md under docs/, as repo paths. */
function documents() {
  const out = ["README.md", "HACKING.md", "CHANGELOG.md"].filter((f) => existsSync(join(root, f)));
  const walk = (dir) => {
    if (!existsSync(join(root, dir))) return;
    for (const e of readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory()) walk(`${dir}/${e.name}`);
      else if (e.name.endsWith(".md")) out.push(`${dir}/${e.name}`);
    }
  };
  walk("docs");
  return out;
}
const blocks = documents().flatMap((doc) => readmeBlocks(readFileSync(join(root, doc), "utf8")).map((b) => ({ ...b, doc })));
const scripts = {};
for (const f of readdirSync(join(root, "tests/js/readme"))
  .filter((f) => f.endsWith(".mjs"))
  .sort()) {
  for (const [name, spec] of Object.entries((await import(`./readme/${f}`)).blocks)) {
    assert.equal(scripts[name], undefined, `block script ${name} is defined twice`);
    scripts[name] = spec;
  }
}

let app;
before(() => {
  // A temporary app: node_modules links to this package and to every dev dependency.
  app = mkdtempSync(join(tmpdir(), "agent-memory-readme-"));
  const modules = join(app, "node_modules");
  mkdirSync(modules);
  for (const entry of readdirSync(join(root, "node_modules"))) {
    if (!entry.startsWith(".")) symlinkSync(join(root, "node_modules", entry), join(modules, entry));
  }
  symlinkSync(root, join(modules, "agent-memory"));
  writeFileSync(join(app, "package.json"), JSON.stringify({ type: "module", private: true }));
});
after(() => rmSync(app, { recursive: true, force: true }));

function runNode(file, env) {
  return new Promise((resolve) => {
    execFile(process.execPath, [file], { cwd: app, env: { ...process.env, ...env }, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test("every documentation block says how it is checked, and every block script is used", () => {
  const unmarked = blocks.filter((b) => b.marker === null).map((b) => `${b.doc} line ${b.line}`);
  assert.deepEqual(unmarked, [], "blocks without a readme-test marker");
  const used = new Set(blocks.map((b) => b.marker.match(/^run (\S+)$/)?.[1]).filter(Boolean));
  assert.deepEqual(
    Object.keys(scripts).filter((n) => !used.has(n)),
    [],
    "block scripts no documentation block uses",
  );
});

for (const block of blocks.filter((b) => b.marker !== null)) {
  const [mode, ...rest] = block.marker.split(/\s+/);
  const title = `${block.doc} line ${block.line} (${block.lang || "text"}): ${block.marker}`;
  if (mode === "run") {
    test(title, async () => {
      const name = rest[0];
      const spec = scripts[name];
      assert.ok(spec, `no script for ${block.doc} block ${name} in tests/js/readme/`);
      assert.ok(["js", "javascript", "mjs"].includes(block.lang), "run blocks are JavaScript");
      const api = await startFakeOpenAI({ flavour: spec.flavour, script: spec.script });
      try {
        const file = join(app, `${name}.mjs`);
        writeFileSync(file, block.code);
        const out = await runNode(file, { OPENAI_BASE_URL: api.url, OPENAI_API_KEY: api.apiKey });
        assert.equal(out.code, 0, `exit ${out.code}\n${out.stderr}`);
        assert.deepEqual(
          api.rejected().map((r) => r.error.error.message),
          [],
          "requests the API would reject",
        );
        assert.equal(api.remaining, 0, "scripted turns the block never asked for");
        await spec.check?.({ api, stdout: out.stdout });
      } finally {
        await api.close();
      }
    });
  } else if (mode === "covered-by") {
    test(title, () => {
      assert.ok(rest.length > 0, "covered-by names a file");
      const files = rest.map((f) => {
        assert.ok(existsSync(join(root, f)), `${f} does not exist`);
        return readFileSync(join(root, f), "utf8").split("\n");
      });
      // Each line of the block, in order, within a line of the files.
      const source = files.flat();
      let at = 0;
      for (const line of block.code
        .split("\n")
        .map((l) => l.trim())
        .filter(Boolean)) {
        const found = source.findIndex((s, i) => i >= at && s.includes(line));
        assert.ok(found >= 0, `not in ${rest.join(", ")} (in order): ${line}`);
        at = found + 1;
      }
    });
  } else if (mode === "npm-scripts") {
    test(title, () => {
      const { scripts: pkg } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
      const commands = [...block.code.matchAll(/npm (?:run (\S+)|(test))/g)].map((m) => m[1] ?? m[2]);
      assert.ok(commands.length > 0, "no npm command in the block");
      for (const c of commands) assert.ok(pkg[c], `package.json has no script ${c}`);
    });
  } else if (mode === "text") {
    test(title, () => assert.equal(block.lang, "", "only a block without a language may be text"));
  } else {
    test(title, () => assert.fail(`unknown readme-test mode ${mode}`));
  }
}
