// Retention that scrubs, in headless Chromium: the scenario of
// retention.test.mjs on indexedDBStorage and localStorageAdapter, checked on
// what the browser holds (scrub/index.html).
import { test } from "node:test";
import assert from "node:assert/strict";
import { withPageResult } from "./harness.mjs";
import { problems } from "./scrub/retention.mjs";

test("Chromium: indexedDBStorage and localStorageAdapter: expired messages leave every stored byte and read", () =>
  withPageResult("/tests/js/scrub/index.html?scenario=retention", 120_000, (result) => {
    for (const field of ["indexedDB", "localStorage"]) {
      assert.deepEqual(problems(result[field], result[field].raw), [], field);
    }
  }));
