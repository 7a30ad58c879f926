// The retention guide's block (docs/guides/retention.md): no model is
// called; its output is checked.
import assert from "node:assert/strict";

export const blocks = {
  retention: {
    script: [],
    check({ stdout }) {
      assert.equal(
        stdout,
        [
          "[ 'You are a travel assistant.', 'Any news about my flight?' ]",
          "[ 'The user lives in Chengdu.' ]",
          "{ messages: 1, episodes: 0, rewritten: 0, facts: 0 }",
          "false",
          "",
        ].join("\n"),
      );
    },
  },
};
