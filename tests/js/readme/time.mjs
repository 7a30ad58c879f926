// The time-and-consolidation guide's blocks: the first calls no model; the
// second's model consolidates from the prompt it is sent. Outputs are checked.
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
  "consolidation-model": {
    script: [
      // The model reads the built-in prompt's fact lines ("- [id] kind, since date: text") and answers.
      ({ body }) => {
        const lines = [...body.messages[1].content.matchAll(/^- \[([^\]]+)\] [^:]*: (.*)$/gm)].map(([, id, text]) => ({ id, text }));
        const id = (word) => lines.filter((l) => l.text.includes(word)).map((l) => l.id);
        const answer = {
          merges: [{ ids: id("spicy"), text: "I like hot, spicy food." }],
          supersedes: [{ id: id("is 5")[0], by: id("turned 6")[0] }],
          profile: "User profile:\n- Has a daughter, Lily, aged 6",
        };
        return { content: JSON.stringify(answer), usage: { input: 420, output: 90 } };
      },
    ],
    check({ api, stdout }) {
      const [decided, live, restated, cost, again] = stdout
        .trim()
        .split("\n")
        .reduce((acc, line) => {
          // console.log of an array or object may take several lines
          if (/^[ \]}]/.test(line) && acc.length) acc[acc.length - 1] += `\n${line}`;
          else acc.push(line);
          return acc;
        }, []);
      assert.equal(decided, "model 2 1");
      assert.equal(
        live,
        "[\n  'I like hot, spicy food.',\n  'Lily just turned 6.',\n  'User profile:\\n- Has a daughter, Lily, aged 6'\n]",
      );
      assert.equal(restated, "true");
      assert.equal(cost, "[ [ 'consolidation', 1 ] ]");
      assert.equal(again, "{ merged: [], superseded: [] }");
      const [system, user] = api.requests[0].body.messages;
      assert.match(system.content, /"merges"/);
      assert.match(user.content, /^- \[[^\]]+\] fact, since 2025-05-01: My daughter Lily is 5\.$/m);
    },
  },
};
