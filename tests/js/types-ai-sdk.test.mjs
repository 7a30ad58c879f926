// agent-memory/ai-sdk's declarations type-check against the real `ai` 7
// types (and ai 6's for the v3 middleware): tsc --strict on tests/types/ai-sdk/usage.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

test("memoryMiddleware, memoryTools and the mappings type-check with ai's own types", () => {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const res = spawnSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tests/types/ai-sdk/tsconfig.json"], {
    cwd: root,
    encoding: "utf8",
  });
  assert.equal(res.status, 0, res.stdout + res.stderr);
});
