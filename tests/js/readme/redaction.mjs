// The redaction guide's blocks (docs/guides/redaction.md): no model is
// called; their output is checked.
import assert from "node:assert/strict";

export const blocks = {
  redaction: {
    script: [],
    check({ stdout }) {
      assert.equal(
        stdout,
        [
          "{ 'openai-key': 1 }",
          "我的 key 是 [redacted:openai-key]，为什么 401？",
          "{ 'aws-access-key': 1, 'url-password': 1 }",
          '{"DATABASE_URL":"postgres://app:[redacted:url-password]@db:5432/shop","AWS_ACCESS_KEY_ID":"[redacted:aws-access-key]"}',
          "{ 'github-token': 1 }",
          "",
        ].join("\n"),
      );
    },
  },
  "redaction-options": {
    script: [],
    check({ stdout }) {
      assert.equal(
        stdout,
        [
          "{ email: 1, phone: 1 }",
          "undefined",
          "{ 'aws-access-key': 1, 'employee-id': 1 }",
          "{ text: 'mail [redacted:email]', redacted: { email: 1 } }",
          "",
        ].join("\n"),
      );
    },
  },
};
