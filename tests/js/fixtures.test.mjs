// The conversation fixture is generated from its data (dialogue.txt,
// tools.json): what is checked in must be what the generator makes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

test("tests/fixtures/conversation/script.json is what dialogue.txt and tools.json generate", () => {
  const script = fileURLToPath(new URL("../../scripts/gen-conversation.mjs", import.meta.url));
  const res = spawnSync(process.execPath, [script, "--check"], { encoding: "utf8" });
  assert.equal(res.status, 0, res.stderr);
});
