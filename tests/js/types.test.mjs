// The generated .d.ts types the public API: a TypeScript file that uses it
// (and expects errors for misuse) compiles under `tsc --strict`; and each
// entry's declarations reach TypeScript through package.json `exports` as
// its resolution modes pick them (tests/types/entries).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const tsc = (...args) => spawnSync(process.execPath, ["node_modules/typescript/bin/tsc", ...args], { cwd: root, encoding: "utf8" });

test("the declarations type the API (tsc --strict on tests/types/usage.ts)", () => {
  const res = tsc("-p", "tests/types/tsconfig.json");
  assert.equal(res.status, 0, res.stdout + res.stderr);
});

// Node's resolutions (and bundler told the "node" condition) see node.d.ts,
// with nodeFileStorage; bundler alone or with "workerd" sees index.d.ts,
// without it (browser.ts expects the import to fail).
for (const [config, node] of [
  ["nodenext", true],
  ["node16", true],
  ["bundler-node", true],
  ["bundler", false],
  ["workerd", false],
]) {
  test(`moduleResolution ${config}: ${node ? "the Node entry's declarations, with" : "the browser/workerd declarations, without"} nodeFileStorage`, () => {
    const res = tsc("-p", `tests/types/entries/tsconfig.${config}.json`, "--listFiles");
    assert.equal(res.status, 0, res.stdout + res.stderr);
    const files = res.stdout
      .split("\n")
      .map((f) => f.slice(root.length))
      .filter((f) => f.startsWith("dist/"));
    assert.ok(files.includes("dist/index.d.ts"), files.join(" "));
    assert.equal(files.includes("dist/node.d.ts"), node, files.join(" "));
    assert.equal(files.includes("dist/storage/storage-file.d.ts"), node, files.join(" "));
  });
}
