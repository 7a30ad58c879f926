// The README's threads block: no model is called; its output is checked.
import assert from "node:assert/strict";

export const blocks = {
  threads: {
    script: [],
    check({ stdout }) {
      assert.equal(stdout, "true\ntrip\n0\n[ 'work', 'trip' ] 下个月去成都，酒店订在春熙路附近\n[ 'work' ]\n");
    },
  },
};
