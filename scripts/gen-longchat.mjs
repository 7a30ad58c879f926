#!/usr/bin/env node
// Writes tests/fixtures/longchat/chats.json: six long two-person chats
// (two English, two Chinese, two mixed), each hundreds of turns in dated
// sessions over months, with questions only old turns answer.
//
//   node scripts/gen-longchat.mjs          write chats.json, print stats
//   node scripts/gen-longchat.mjs --check  fail if chats.json on disk differs
//
// Inputs (hand-written, same directory): stories.json (per chat: the two
// people, the stories with their evidence turns, distractors and questions)
// and filler.json (everyday chat per language pool). This script lays each
// chat out: sessions a few days apart, each a greeting, small talk on
// recurring topics, the stories' turns of that session (with the other
// person's reply), a goodbye. Deterministic: a seeded mulberry32 per chat,
// so the output is byte-identical every run.
//
// Invariants checked here (the script throws otherwise):
// - roles alternate user / assistant, starting with the user; `name` is the
//   speaker (OpenAI's message field), `ts` increases (ms since the epoch);
// - every question's evidence names story turns of its chat, and each
//   evidence turn is followed by at least MIN_TOKENS_AFTER estimated tokens,
//   so no evidence is among the newest few thousand tokens;
// - no evidence text occurs twice in a chat (the benches match it verbatim).

import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { mulberry32 } from "../bench/corpus.mjs";

const DIR = fileURLToPath(new URL("../tests/fixtures/longchat/", import.meta.url));
const OUT = DIR + "chats.json";
const MIN_TOKENS_AFTER = 8_000;
const CHATTER = [4, 6]; // small-talk exchanges per session, inclusive
const DAY = 86_400_000;

const stories = JSON.parse(readFileSync(DIR + "stories.json", "utf8"));
const filler = JSON.parse(readFileSync(DIR + "filler.json", "utf8"));

const HAN = /[\u3400-\u9fff]/;
const LATIN_WORD = /[A-Za-z]{2,}/g;
/** zh, en, or mixed (Han characters and at least two Latin words), as tests/fixtures/recall/gen.py. */
function langOf(text) {
  const han = HAN.test(text);
  if (han && (text.match(LATIN_WORD) ?? []).length >= 2) return "mixed";
  return han ? "zh" : "en";
}

/** A rough o200k estimate (a Han character about one token, Latin about four characters), for the checks only. */
const estimate = (s) => [...s].reduce((n, ch) => n + (HAN.test(ch) ? 1 : 0.25), 4);

function seedOf(id) {
  let h = 2166136261;
  for (const ch of id) h = Math.imul(h ^ ch.codePointAt(0), 16777619) >>> 0;
  return h;
}

function layOut(chat) {
  const rand = mulberry32(seedOf(chat.id));
  const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  // This chat's half of every list of its pool: the other chat of the pool has the other half.
  const half = (xs) => xs.filter((_, i) => i % 2 === chat.parity);
  const pool = filler[chat.pool];
  const lists = Object.fromEntries(["hello_u", "hello_a", "bye_u", "bye_a", "ack", "prompt"].map((k) => [k, half(pool[k])]));
  const topics = Object.values(pool.topics).map((t) => ({ u: half(t.u), a: half(t.a) }));
  const fill = (template, me, you, memo = new Map()) =>
    template.replace(/\{(\w+)\}/g, (_, slot) => {
      if (slot === "me") return me;
      if (slot === "you") return you;
      if (!memo.has(slot)) memo.set(slot, pick(pool.slots[slot]));
      return memo.get(slot);
    });
  // Sentences of one message: a Chinese one ends in a full stop unless it has its own mark.
  const join = (parts) =>
    chat.pool === "en"
      ? parts
          .map((p) => (/[.!?)]$/.test(p) ? p : p + "."))
          .join(" ")
          .replace(/\.$/, parts.length === 1 ? "" : ".")
      : parts.map((p, j) => (j < parts.length - 1 && !/[。！？!?～~]$/.test(p) ? p + "，" : p)).join("");
  const U = chat.user;
  const A = chat.assistant;

  // session -> story turns said in it
  const bySession = new Map();
  for (const s of chat.stories) {
    for (const [session, who, ref, text, reply] of s.turns) {
      if (session >= chat.sessions) throw new Error(`${chat.id}/${s.id}: session ${session} past the last`);
      const list = bySession.get(session) ?? [];
      list.push({ story: s.id, who, ref, text, reply });
      bySession.set(session, list);
    }
  }

  const messages = [];
  const refs = new Map(); // "story/ref" -> message id
  let day = Date.parse(`${chat.start}T00:00:00Z`);
  for (let session = 0; session < chat.sessions; session++) {
    if (session > 0) day += int(2, 6) * DAY;
    let ts = day + int(7 * 60, 22 * 60) * 60_000;
    const pairs = [[fill(pick(lists.hello_u), U, A), fill(pick(lists.hello_a), A, U)]];
    const chatter = [];
    let topic = pick(topics);
    for (let i = int(...CHATTER); i > 0; i--) {
      if (rand() < 0.5) topic = pick(topics);
      // Some messages say two or three things: chat lines vary in length.
      // The topics' u and a lists are parallel (a[i] answers u[i]), and a
      // slot keeps its value within an exchange, so the reply fits.
      const said = [[topic, int(0, topic.u.length - 1)]];
      for (const p of [0.6, 0.3]) {
        if (rand() >= p) break;
        const t = pick(topics);
        const k = int(0, t.u.length - 1);
        if (!said.some(([t2, k2]) => t2 === t && k2 === k)) said.push([t, k]);
      }
      const slots = new Map();
      const answered = said.filter((_, j) => j === 0 || rand() < 0.7);
      chatter.push([join(said.map(([t, k]) => fill(t.u[k], U, A, slots))), join(answered.map(([t, k]) => fill(t.a[k], A, U, slots)))]);
    }
    for (const t of bySession.get(session) ?? []) {
      const pair = t.who === "u" ? [t.text, t.reply ?? fill(pick(lists.ack), A, U), t] : [fill(pick(lists.prompt), U, A), t.text, t];
      chatter.splice(int(0, chatter.length), 0, pair);
      if (t.who === "a") {
        // The user answers the news before the chat moves on.
        const after = chatter.indexOf(pair) + 1;
        chatter.splice(after, 0, [t.reply ?? fill(pick(lists.ack), U, A), fill(pick(pick(topics).a), A, U)]);
      }
    }
    pairs.push(...chatter, [fill(pick(lists.bye_u), U, A), fill(pick(lists.bye_a), A, U)]);
    for (const [user, assistant, story] of pairs) {
      for (const [role, name, content] of [
        ["user", U, user],
        ["assistant", A, assistant],
      ]) {
        ts += int(15, 240) * 1000 + content.length * 300;
        messages.push({ id: messages.length + 1, role, name, content, ts });
        const said = story && (story.who === "u") === (role === "user");
        if (said && story.ref) refs.set(`${story.story}/${story.ref}`, messages.length);
      }
    }
  }

  const questions = [];
  for (const s of chat.stories) {
    s.questions.forEach(([type, lang, query, evidenceRefs], k) => {
      const evidence = evidenceRefs.map((r) => {
        const id = refs.get(`${s.id}/${r}`);
        if (!id) throw new Error(`${chat.id}/${s.id}: no turn ${r}`);
        return id;
      });
      const langs = evidence.map((id) => langOf(messages[id - 1].content));
      const crossLingual = langs.every((l) => l !== lang && l !== "mixed" && lang !== "mixed");
      questions.push({ id: `${chat.id}/${s.id}-${k + 1}`, type, lang, crossLingual, query, evidence });
    });
  }
  return { messages, questions };
}

function check(chat, messages, questions) {
  messages.forEach((m, i) => {
    if (m.role !== (i % 2 === 0 ? "user" : "assistant")) throw new Error(`${chat.id}: roles do not alternate at ${m.id}`);
    if (i > 0 && m.ts <= messages[i - 1].ts) throw new Error(`${chat.id}: ts not increasing at ${m.id}`);
  });
  const after = new Array(messages.length + 1).fill(0);
  for (let i = messages.length - 1; i >= 0; i--) after[i] = after[i + 1] + estimate(messages[i].content);
  let closest = Infinity;
  for (const q of questions) {
    for (const id of q.evidence) {
      const text = messages[id - 1].content;
      if (messages.filter((m) => m.content === text).length !== 1) throw new Error(`${chat.id}: evidence ${id} said twice`);
      closest = Math.min(closest, after[id]);
    }
  }
  if (closest < MIN_TOKENS_AFTER) throw new Error(`${chat.id}: an evidence turn has only ${closest} tokens after it`);
  return { closest, total: after[0] };
}

const chats = [];
for (const chat of stories.chats) {
  const { messages, questions } = layOut(chat);
  const { closest, total } = check(chat, messages, questions);
  chats.push({ id: chat.id, lang: chat.lang, split: chat.split, user: chat.user, assistant: chat.assistant, messages, questions });
  const days = (messages.at(-1).ts - messages[0].ts) / DAY;
  process.stderr.write(
    `${chat.id.padEnd(22)} ${chat.split.padEnd(8)} ${messages.length} messages over ${days.toFixed(0)} days, ~${Math.round(total)} tokens, ` +
      `${questions.length} questions (${questions.filter((q) => q.crossLingual).length} cross-lingual), nearest evidence ~${Math.round(closest)} tokens from the end\n`,
  );
}

// One message or question per line: diffs stay readable.
const lines = ['{"_about": "Generated by scripts/gen-longchat.mjs from stories.json and filler.json; see README.md.", "chats": ['];
chats.forEach((c, ci) => {
  const head = JSON.stringify({ id: c.id, lang: c.lang, split: c.split, user: c.user, assistant: c.assistant }).slice(0, -1);
  lines.push(`${head}, "messages": [`);
  c.messages.forEach((m, i) => lines.push(JSON.stringify(m) + (i < c.messages.length - 1 ? "," : "")));
  lines.push('], "questions": [');
  c.questions.forEach((q, i) => lines.push(JSON.stringify(q) + (i < c.questions.length - 1 ? "," : "")));
  lines.push(`]}${ci < chats.length - 1 ? "," : ""}`);
});
lines.push("]}");
const text = lines.join("\n") + "\n";
JSON.parse(text);

if (process.argv.includes("--check")) {
  let old = "";
  try {
    old = readFileSync(OUT, "utf8");
  } catch {}
  if (old !== text) {
    console.error("tests/fixtures/longchat/chats.json is out of date: run node scripts/gen-longchat.mjs");
    process.exit(1);
  }
  console.error("chats.json is up to date");
} else {
  writeFileSync(OUT, text);
  console.error(`wrote ${OUT} (${(text.length / 1024).toFixed(0)} KiB)`);
}
