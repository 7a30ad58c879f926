// The two assistants behind the chat: an offline one that answers only from
// what the memory controller put in the context (so recall is visible with
// no key and no network), and a client for any OpenAI-compatible
// /chat/completions endpoint. Neither stores anything: the app owns memory.

export const SYSTEM_PROMPT =
  "You are the assistant of the agent-memory demo. Use the memory blocks you are given (preferences, stored notes, summaries of earlier turns) when they are relevant.";

/** Procedural memory, set at every start: a rule set and one tool. */
export const PROCEDURES = {
  rules: ["Answer briefly.", "Reply in the language the user writes in."],
  tools: [
    {
      type: "function",
      function: {
        name: "get_weather",
        description: "Current weather for a city",
        parameters: {
          type: "object",
          properties: { city: { type: "string", description: "City name, e.g. Chengdu or 成都" } },
          required: ["city"],
        },
      },
    },
  ],
};

const HAN = /[\u3400-\u9fff\uf900-\ufaff]/;
/** The language to reply in: Chinese if the user wrote any Han characters. */
export const replyLang = (text) => (HAN.test(text) ? "zh" : "en");

const REMEMBER_ZH = /^\s*(?:请\s*)?(?:帮我\s*)?(?:记住|记一下|记下)(?:一下)?\s*[:：,，]?\s*(.+)$/s;
const REMEMBER_EN = /^\s*(?:please\s+)?remember(?:\s+that)?\s*[:,]?\s*(.+)$/is;
// A statement of how the user wants things: stored as a preference, which
// the controller pins into every context (not retrieved by relevance).
const PREFERENCE =
  /我(?:更|比较|最|一般)?(?:喜欢|偏好|偏爱|倾向于?|习惯|希望)|请(?:总是|尽量|用)|\bI(?:'d| would)? (?:prefer|rather|like|love)\b|\bplease always\b/i;
const QUESTION = /[?？]\s*$|^\s*(?:what|who|where|when|which|how|why|do|does|did|is|are|can|could)\b|什么|吗[\s。]*$|哪|谁|多少|怎么|几/i;
const WEATHER = /weather|天气|气温/i;
// A question about how the user wants things, answered from the pinned
// preferences block before anything is searched: a preference stated in one
// language must answer a question asked in the other.
const ABOUT_PREFERENCES = /\bprefer(?:s|red|ences?)?\b|\bfavou?rites?\b|\b(?:do|did) I (?:like|love|want)\b|偏好|喜欢|习惯|爱好|倾向/i;

/** Words (Latin, 3+ letters) and Han bigrams of `text`, for a rough overlap. */
function cues(text) {
  const lower = text.toLowerCase();
  const han = [...lower.matchAll(/[\u3400-\u9fff]+/g)].flatMap(([run]) => [...run].slice(1).map((c, i) => run[i] + c));
  return new Set([...(lower.match(/[a-z][a-z0-9+#]{2,}/g) ?? []), ...han]);
}

/** The preferences that share a cue with `question` (all of them when none does), at most 3. */
export function preferencesFor(question, preferences) {
  const asked = cues(question);
  const shared = preferences.filter((p) => [...cues(p)].some((c) => asked.has(c) && !/^(?:prefer|what|about|did|say|said)$/.test(c)));
  return (shared.length ? shared : preferences).slice(0, 3);
}

/**
 * What to store from this user message, if anything: an explicit
 * "记住…/remember …" (a preference when it states one, else a fact) or a
 * plain preference statement such as "I prefer short answers".
 */
export function memoryIntent(text) {
  const m = REMEMBER_ZH.exec(text) ?? REMEMBER_EN.exec(text);
  if (m && m[1].trim()) return { text: m[1].trim(), kind: PREFERENCE.test(m[1]) ? "preference" : "fact" };
  if (PREFERENCE.test(text) && !QUESTION.test(text)) return { text: text.trim(), kind: "preference" };
  return null;
}

/**
 * The items of the `<memory type="…">` blocks in the context, by type, in the
 * order the model sees them. Reading the blocks (not the store) keeps the
 * offline assistant honest: it knows exactly what a real model would be shown.
 */
export function memoryBlocks(messages) {
  const out = { preferences: [], knowledge: [] };
  for (const m of messages) {
    if (m.role !== "system" || typeof m.content !== "string") continue;
    const head = /^<memory type="(\w+)">\n[^\n]*\n/.exec(m.content);
    if (!head || !(head[1] in out)) continue;
    const body = m.content.slice(head[0].length).replace(/\n<\/memory>$/, "");
    out[head[1]] = body.split(/\n(?=- )/).map((item) =>
      item
        .replace(/^- /, "")
        .replace(/\n {2}/g, "\n")
        .replace(/&lt;/g, "<"),
    );
  }
  return out;
}

const EARLIER = /^\(earlier message ([^)]+)\) /;

function cityOf(text, lang) {
  if (lang === "zh") {
    // Leading filler ("请问明天…") is not part of the city name.
    const clean = text.replace(/[，。？?！!\s]/g, "").replace(/^(?:请问|问下|查一?查|看看|今天|明天|现在)+/, "");
    const m = /^([\u4e00-\u9fff]{2,4}?)(?:今天|明天|现在|的)?(?:天气|气温)/.exec(clean);
    return m ? m[1] : "北京";
  }
  const m = /\b(?:in|for|at)\s+([A-Z][\w' -]*?)\s*(?:today|tomorrow|now)?\s*[?.!]*$/i.exec(text);
  return m ? m[1] : "London";
}

/** A fake weather service: deterministic per city, so reruns match. */
export function getWeather({ city }) {
  let h = 0;
  for (const ch of String(city)) h = (h * 31 + ch.codePointAt(0)) >>> 0;
  const conditions = ["sunny", "cloudy", "light rain", "overcast", "clear"];
  return { city, condition: conditions[h % conditions.length], temperatureC: 12 + (h % 17) };
}

/**
 * The offline assistant's turn: either a tool call (weather questions, to
 * show a tool-call group being kept whole) or a text reply built from the
 * context's memory blocks. `roleOf(id)` maps an earlier message id to its
 * role, so only what the *user* said is quoted back.
 */
export function offlineTurn({ text, ctx, stored, roleOf }) {
  const lang = replyLang(text);
  const zh = lang === "zh";
  const { preferences, knowledge } = memoryBlocks(ctx.messages);
  const brief = preferences.some((p) => /short|brief|concise|简短|简洁|简单/i.test(p));

  if (stored) {
    const what = stored.kind === "preference" ? (zh ? "偏好" : "preference") : zh ? "事实" : "fact";
    return { content: zh ? `好的，我记住了这条${what}：${stored.text}` : `Got it — I'll remember this ${what}: ${stored.text}` };
  }
  if (WEATHER.test(text)) {
    const city = cityOf(text, lang);
    return { toolCall: { name: "get_weather", arguments: { city } } };
  }
  if (QUESTION.test(text) && ABOUT_PREFERENCES.test(text) && preferences.length) {
    const prefs = preferencesFor(text, preferences);
    return { content: zh ? `你告诉过我：${prefs.join("；")}` : `You told me: ${prefs.join("; ")}` };
  }
  if (QUESTION.test(text)) {
    const facts = knowledge.filter((k) => !EARLIER.test(k)).slice(0, 3);
    const said = knowledge
      .map((k) => EARLIER.exec(k) && { id: EARLIER.exec(k)[1], text: k.replace(EARLIER, "") })
      .filter((k) => k && roleOf(k.id) === "user")
      .slice(0, 2)
      .map((k) => k.text);
    const prefs =
      preferences.length && !brief
        ? zh
          ? `（你的偏好：${preferences.join("；")}）`
          : ` (Your preferences: ${preferences.join("; ")}.)`
        : "";
    if (facts.length) return { content: (zh ? `我记得：${facts.join("；")}。` : `I remember: ${facts.join("; ")}.`) + prefs };
    if (said.length)
      return { content: (zh ? `我记得你说过：“${said.join("”；“")}”。` : `I remember you said: “${said.join("”; “")}”.`) + prefs };
    return {
      content: zh
        ? "我是离线演示助手，只知道记忆里的内容，而记忆里没有相关的。可以用“记住：……”告诉我，或在右上角接入一个模型。"
        : "I'm the offline demo assistant: I only know what is in memory, and nothing there matches. Tell me with “remember: …”, or connect a model (top right).",
    };
  }
  if (brief) return { content: zh ? "好的。" : "Noted." };
  const canned = zh
    ? [
        "收到。我是离线演示助手：你说的每句话都进了记忆，之后可以问我。",
        "好的。留意右边的检查器：工作记忆快满时，较早的对话会被压缩成情节。",
        "明白！小提示：说“记住……”可以存下一条事实，然后再问我。",
      ]
    : [
        "Noted. I'm the offline demo assistant: everything you say goes into memory — ask me about it later.",
        "Got it. Watch the inspector: when working memory fills up, older turns are compacted into episodes.",
        "OK! Tip: say “remember …” to store a fact, then ask me about it.",
      ];
  return { content: canned[[...text].length % canned.length] };
}

/** The offline assistant's reply once the weather tool answered. */
export function weatherReply(result, lang) {
  return lang === "zh"
    ? `${result.city}：${{ sunny: "晴", cloudy: "多云", "light rain": "小雨", overcast: "阴", clear: "晴朗" }[result.condition]}，${result.temperatureC}°C。`
    : `${result.city}: ${result.condition}, ${result.temperatureC}°C.`;
}

/**
 * One call to an OpenAI-compatible endpoint with the built context.
 * `settings` ({ baseURL, model, apiKey }) lives only in the caller's
 * variables. Resolves to `{ message, usage }` (usage may be missing).
 */
export async function chatCompletion(settings, ctx, reserveOutput) {
  const body = { model: settings.model, messages: ctx.messages, max_tokens: reserveOutput };
  if (ctx.tools) body.tools = ctx.tools;
  const res = await fetch(`${settings.baseURL.replace(/\/+$/, "")}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${settings.apiKey}` },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
  const json = await res.json();
  const message = json.choices?.[0]?.message;
  if (!message) throw new Error("the endpoint returned no choices[0].message");
  // Keep only the OpenAI message fields the controller accepts.
  const clean = { role: "assistant", content: message.content ?? null };
  if (message.tool_calls?.length)
    clean.tool_calls = message.tool_calls.map(({ id, type, function: f }) => ({
      id,
      type: type ?? "function",
      function: { name: f.name, arguments: f.arguments },
    }));
  if (clean.content === null && !clean.tool_calls) clean.content = "";
  return { message: clean, usage: json.usage };
}
