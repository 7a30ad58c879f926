// The time-and-consolidation guide's block: no model is called; its output is checked.
import assert from "node:assert/strict";

export const blocks = {
  "time-facts": {
    script: [],
    check({ stdout }) {
      const [superseded, live, then, ...blocks] = stdout.split("\n");
      assert.equal(superseded, "true");
      assert.equal(live, "[ 'I moved to Berlin.' ]");
      assert.equal(then, "[ [ 'I live in Shanghai.', '2026-03' ] ]");
      const text = blocks.join("\n");
      const [now, past] = text.split("</memory>");
      assert.ok(now.indexOf("Berlin") < now.indexOf("I live in Shanghai. (until 2026-03)"), now);
      assert.ok(past.includes("I live in Shanghai. (2024-01 to 2026-03)") && !past.includes("(until"), past);
    },
  },
};
