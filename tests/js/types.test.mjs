// The generated .d.ts types the public API: a TypeScript file that uses it
// (and expects errors for misuse) compiles under `tsc --strict`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

test("the declarations type the API (tsc --strict on tests/types/usage.ts)", () => {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const res = spawnSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tests/types/tsconfig.json"], { cwd: root, encoding: "utf8" });
  assert.equal(res.status, 0, res.stdout + res.stderr);
});
