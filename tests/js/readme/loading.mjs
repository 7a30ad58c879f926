// The README's loading block (ready(), the sync classes, create({ ranks })):
// no model is called; its output is checked.
import assert from "node:assert/strict";

export const blocks = {
  loading: {
    script: [],
    check({ stdout }) {
      assert.equal(stdout, "Float64Array(1) [ 1 ]\n2\n");
    },
  },
};
