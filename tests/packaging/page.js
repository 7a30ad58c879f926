// What each browser consumer's entry runs: the shared report, left where the
// test reads it (window.__result, or window.__error naming the failure) and
// shown in #out.
import { describeError, report } from "./conversation.js";

export function runInPage(modules, options) {
  const out = document.getElementById("out");
  return report(modules, options).then(
    (result) => {
      window.__result = result;
      out.textContent = JSON.stringify(result, null, 2);
    },
    (e) => {
      window.__error = describeError(e);
      out.textContent = window.__error;
    },
  );
}
