// The memory tools and agent-memory/openai type-check against the real
// `openai` client's types (tsc --strict on tests/types/openai/usage.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

test("callTool, toolDefinitions and agent-memory/openai type-check with the openai client's types", () => {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const res = spawnSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tests/types/openai/tsconfig.json"], {
    cwd: root,
    encoding: "utf8",
  });
  assert.equal(res.status, 0, res.stdout + res.stderr);
});
