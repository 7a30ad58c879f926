// docs/guides/import.md's example: no model is called; its output is checked.
import assert from "node:assert/strict";

export const blocks = {
  import: {
    script: [],
    check({ stdout }) {
      assert.equal(stdout, "1 conversation(s), 2 message(s)\n2 0\nchatgpt-c-1 成都旅行 2024-06-01T00:00:00.000Z\n0 2\n");
    },
  },
};
