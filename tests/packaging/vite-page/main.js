// A Vite-built page using the installed package (its `browser` entry): the
// wasm and the rank assets must come along in the build and load from the
// built site. The result lands in window.__result for the test to read.
import * as memory from "agent-memory";
import { runConversation } from "./conversation.js";

const out = document.getElementById("out");
runConversation(memory).then(
  (result) => {
    window.__result = result;
    out.textContent = JSON.stringify(result, null, 2);
  },
  (e) => {
    window.__error = `${e?.name}: ${e?.code ?? ""} ${e?.message ?? e}\n${e?.stack ?? ""}`;
    out.textContent = window.__error;
  },
);
