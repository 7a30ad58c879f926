// A useChat app end to end: the SDK's own chat client (AbstractChat, what
// useChat wraps, over DefaultChatTransport) talks over HTTP to a route that
// passes the whole conversation to streamText on every turn, as the AI SDK
// docs write it, with memoryMiddleware on the model, against the fake OpenAI
// API. After every step memory holds exactly the conversation the client
// shows: each turn once, regenerations and edits replacing what they
// replace, a stopped answer kept; every request valid; usage charged; and
// a chat restored from memory with toUIMessages is recognised, not stored again.
// Node-dependent: streamed answers through Node's web streams and HTTP server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { isStepCount, tool } from "ai";
import { z } from "zod";
import { fromUIMessages, toUIMessages } from "../../dist/integrations/ai-sdk/ai-sdk.js";
import { fingerprint } from "../../dist/integrations/ai-sdk/ai-sdk-align.js";
import { assertSound, conversation, sentTurns, setup, startRoute } from "./ai-sdk-support.mjs";

const INSTRUCTIONS = "You are a weather assistant. Answer briefly.";
const weather = tool({
  description: "Weather in a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, sky: city === "Paris" ? "sunny" : "rain" }),
});
const fromResults = ({ body }) =>
  body.messages
    .filter((m) => m.role === "tool")
    .map((m) => JSON.parse(m.content))
    .map((r) => `${r.city}: ${r.sky}.`)
    .join(" ");
const STORY = "Once upon a time a cloud wandered over Chengdu and decided to stay for the whole summer.";

const textOf = (ui) =>
  ui.parts
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("");

test("a useChat route: memory holds what the client shows after every turn, regenerate, edit and stop", { timeout: 120_000 }, async (t) => {
  const s = await setup(t, {
    script: [
      "Hello! How can I help?",
      {
        toolCalls: [
          { id: "call_p", name: "weather", arguments: { city: "Paris" } },
          { id: "call_t", name: "weather", arguments: { city: "Tokyo" } },
        ],
      },
      fromResults,
      "You're welcome!",
      "Glad to help!", // regenerated
      "Rome: rain.", // after the edit
      { content: STORY, stream: { stallAfter: 8 } }, // stopped
      "The end.",
    ],
  });
  const route = await startRoute(s.model, { instructions: INSTRUCTIONS, tools: { weather }, stopWhen: isStepCount(3) });
  t.after(() => route.close());
  const chat = route.chat();
  const same = async (why) => {
    assert.equal(chat.error, undefined, `${why}: ${chat.error}`);
    assert.deepEqual(
      (await conversation(s.memory)).map(fingerprint),
      fromUIMessages(chat.messages).map(fingerprint),
      `${why}: memory holds the client's conversation`,
    );
  };

  await chat.sendMessage({ text: "Hi" });
  await same("turn 1");
  await chat.sendMessage({ text: "Weather in Paris and Tokyo?" });
  assert.equal(textOf(chat.lastMessage), "Paris: sunny. Tokyo: rain.");
  await same("a tool loop");
  await chat.sendMessage({ text: "Thanks!" });
  await same("turn 3");
  // Each request sent memory's context, which the route's whole conversation did not add to.
  assert.deepEqual(
    sentTurns(s.api, 3).map(([role]) => role),
    ["system", "user", "assistant", "user", "assistant", "tool", "tool", "assistant", "user"],
  );
  assert.deepEqual(
    s.reports.map((r) => r.prompt.length),
    [1, 1, 2, 1],
    "only the new turn (and a step's results) stored each time",
  );

  await chat.regenerate();
  assert.equal(textOf(chat.lastMessage), "Glad to help!");
  await same("regenerated");
  assert.equal(s.reports.at(-1).superseded.length, 1, "the old answer was replaced");
  assert.equal(sentTurns(s.api, 4).at(-1)[1], "Thanks!", "the regenerated answer was asked for without the old one");

  await chat.sendMessage({ text: "Weather in Rome?", messageId: chat.messages[2].id });
  assert.equal(textOf(chat.lastMessage), "Rome: rain.");
  await same("edited");
  assert.equal(s.reports.at(-1).superseded.length, 7, "the edited turn and everything after it were replaced");

  // Stop in the middle of an answer: the client keeps what it showed, memory what passed through.
  const sending = chat.sendMessage({ text: "Tell me a story." });
  await chat.waitFor((ms) => ms.at(-1)?.role === "assistant" && textOf(ms.at(-1)).split(" ").length > 2);
  await chat.stop();
  await sending;
  const shown = textOf(chat.lastMessage);
  await s.reported(7); // the route learns of the stop when the connection closes
  assert.equal(s.reports.at(-1).status, "aborted");
  const kept = (await conversation(s.memory)).at(-1).content;
  assert.ok(kept.startsWith(shown) && STORY.startsWith(kept), JSON.stringify({ shown, kept }));
  await chat.sendMessage({ text: "And then?" });
  await same("after a stopped answer (what the client showed replaced what memory kept, if they differed)");

  await assertSound(s, { requests: 8, stored: fromUIMessages(chat.messages) });
});

test("a chat restored from memory (toUIMessages) goes on without storing anything twice", { timeout: 120_000 }, async (t) => {
  const s = await setup(t, {
    script: ["Hello!", { toolCalls: [{ id: "call_p", name: "weather", arguments: { city: "Paris" } }] }, fromResults, "Welcome back."],
  });
  const route = await startRoute(s.model, { instructions: INSTRUCTIONS, tools: { weather }, stopWhen: isStepCount(3) });
  t.after(() => route.close());
  const first = route.chat();
  await first.sendMessage({ text: "Hi" });
  await first.sendMessage({ text: "Paris?" });

  // A new session: the client starts from what memory holds.
  const history = await s.memory.history();
  const restored = toUIMessages(history);
  // A UIMessage takes the id of the message that opens it: a user turn, or the first answer after one.
  const opening = history.filter(
    (h, i) => h.message.role === "user" || (h.message.role === "assistant" && history[i - 1]?.message.role === "user"),
  );
  assert.deepEqual(
    restored.map((m) => m.id),
    opening.map((h) => h.id),
  );
  assert.deepEqual(restored.map(textOf), first.messages.map(textOf));
  const second = route.chat({ messages: restored });
  await second.sendMessage({ text: "I'm back." });
  assert.equal(textOf(second.lastMessage), "Welcome back.");
  assert.deepEqual(s.reports.at(-1).prompt.length, 1, "only the new turn was stored");
  assert.deepEqual(s.reports.at(-1).superseded, []);
  await assertSound(s, { requests: 4, stored: fromUIMessages(second.messages) });
});
