// UI text in English and Chinese. Static text is marked in the HTML with
// data-i18n (textContent), data-i18n-placeholder and data-i18n-title, so
// switching language is one pass over the document plus a re-render of the
// dynamic parts; no text is baked into the markup twice.

const STRINGS = {
  en: {
    title: "agent-memory — live demo",
    subtitle: "memory controller for LLM chat, running in your browser (WebAssembly)",
    forget: "Forget everything",
    forgetConfirm: "Delete the whole conversation and every memory from this browser?",
    forgotten: "Everything was forgotten: {messages} messages and {facts} facts removed.",
    endpoint: "Model",
    endpointHelp:
      "Leave the key empty to use the offline assistant. The key stays in this tab's memory only: never saved, never in the URL.",
    baseURL: "Base URL",
    model: "Model",
    apiKey: "API key",
    useEndpoint: "Use endpoint",
    useOffline: "Use offline",
    modeOffline: "Offline assistant · answers from memory",
    modeOnline: "Endpoint: {model}",
    loading: "Loading the WebAssembly module and tokenizer…",
    placeholder: "Type a message… (Enter to send, Shift+Enter for a new line)",
    send: "Send",
    tryThese: "Try:",
    emptyChat:
      "Say something, or tell me “remember …”. Then ask about it later — even after the turn has been compacted away or the page reloaded.",
    toolCall: "calls {name}({args})",
    pinnedPrompt: "Pinned system prompt:",
    toolResult: "{name} returned {result}",
    inspector: "Memory inspector",
    budget: "Context budget (last buildContext)",
    budgetNone: "Send a message to build a context.",
    budgetTotal: "{tokens} of {available} tokens used · {reserve} reserved for the reply · max {max}",
    budgetCache:
      "Stable prefix: {tokens} tokens ({share}) before the recall block, the same on the next call until a compaction; a provider bills it at its cached price.",
    sec_system: "system",
    sec_procedures: "procedures",
    sec_tools: "tools",
    sec_preferences: "preferences",
    sec_knowledge: "knowledge",
    sec_summary: "summary",
    sec_recent: "recent",
    sec_overhead: "overhead",
    sec_reserve: "reserved",
    sec_free: "free",
    stats: "Usage",
    st_messages: "messages",
    st_pinned: "pinned",
    st_working: "working",
    st_archived: "archived",
    st_episodes: "episodes",
    st_cost: "cost so far",
    st_cached: "prompt tokens billed as cached",
    st_calls: "model calls",
    st_simulated: "offline calls are priced as if sent to {model}",
    working: "Working memory",
    workingMeter: "{tokens} / {limit} tokens · compaction at {threshold}",
    workingEmpty: "No turns yet.",
    inContext: "in the last context",
    notInContext: "left out of the last context",
    moreEarlier: "+{n} earlier turns",
    episodic: "Episodic memory",
    episodicEmpty: "No episodes yet: they appear when working memory passes its threshold and old turns are compacted.",
    importance: "importance",
    messagesN: "{n} messages",
    src_model: "model summary",
    src_fallback: "extractive summary",
    semantic: "Semantic memory",
    semanticEmpty: "No facts yet. Try “记住：我对花生过敏” or “I prefer short answers”.",
    kind_fact: "fact",
    kind_preference: "preference",
    kind_chunk: "document",
    procedural: "Procedural memory",
    rules: "Rules",
    tools: "Tools",
    compactions: "Compaction log",
    compactionsEmpty: "No compaction yet.",
    compactionLine: "{n} messages → {episode} · working {before} → {after} tokens",
    compactionRestored: "{n} messages → {episode}",
    restored: "restored",
    error: "Error: {message}",
    lang: "中文",
  },
  zh: {
    title: "agent-memory — 在线演示",
    subtitle: "LLM 对话的记忆控制器，在你的浏览器里运行（WebAssembly）",
    forget: "全部遗忘",
    forgetConfirm: "要从这个浏览器删除整个对话和所有记忆吗？",
    forgotten: "已全部遗忘：删除了 {messages} 条消息和 {facts} 条事实。",
    endpoint: "模型",
    endpointHelp: "不填密钥就使用离线助手。密钥只保存在这个标签页的内存里：不写入存储，也不出现在网址中。",
    baseURL: "Base URL",
    model: "模型",
    apiKey: "API 密钥",
    useEndpoint: "使用该接口",
    useOffline: "使用离线助手",
    modeOffline: "离线助手 · 根据记忆回答",
    modeOnline: "接口：{model}",
    loading: "正在加载 WebAssembly 模块和分词器…",
    placeholder: "输入消息…（Enter 发送，Shift+Enter 换行）",
    send: "发送",
    tryThese: "试试：",
    emptyChat: "随便说点什么，或者告诉我“记住……”。之后再问我——即使那段对话已被压缩，或者页面已经刷新。",
    toolCall: "调用 {name}({args})",
    pinnedPrompt: "固定的系统提示：",
    toolResult: "{name} 返回 {result}",
    inspector: "记忆检查器",
    budget: "上下文预算（最近一次 buildContext）",
    budgetNone: "发送一条消息来构建上下文。",
    budgetTotal: "已用 {tokens} / {available} tokens · 为回复预留 {reserve} · 上限 {max}",
    budgetCache: "稳定前缀：召回块之前的 {tokens} tokens（{share}），下次调用不变（直到下次压缩），服务商按缓存价计费。",
    sec_system: "系统",
    sec_procedures: "规则",
    sec_tools: "工具",
    sec_preferences: "偏好",
    sec_knowledge: "知识",
    sec_summary: "摘要",
    sec_recent: "近期对话",
    sec_overhead: "格式开销",
    sec_reserve: "预留",
    sec_free: "空闲",
    stats: "用量",
    st_messages: "消息",
    st_pinned: "固定",
    st_working: "工作区",
    st_archived: "已归档",
    st_episodes: "情节",
    st_cost: "累计费用",
    st_cached: "按缓存计费的输入占比",
    st_calls: "模型调用",
    st_simulated: "离线调用按 {model} 的价格估算",
    working: "工作记忆",
    workingMeter: "{tokens} / {limit} tokens · 超过 {threshold} 时压缩",
    workingEmpty: "还没有对话。",
    inContext: "在最近的上下文中",
    notInContext: "未进入最近的上下文",
    moreEarlier: "还有 {n} 条更早的消息",
    episodic: "情节记忆",
    episodicEmpty: "还没有情节：工作记忆超过阈值时，较早的对话会被压缩成情节。",
    importance: "重要度",
    messagesN: "{n} 条消息",
    src_model: "模型摘要",
    src_fallback: "抽取式摘要",
    semantic: "语义记忆",
    semanticEmpty: "还没有事实。试试“记住：我对花生过敏”或“I prefer short answers”。",
    kind_fact: "事实",
    kind_preference: "偏好",
    kind_chunk: "文档",
    procedural: "程序记忆",
    rules: "规则",
    tools: "工具",
    compactions: "压缩日志",
    compactionsEmpty: "还没有发生压缩。",
    compactionLine: "{n} 条消息 → {episode} · 工作区 {before} → {after} tokens",
    compactionRestored: "{n} 条消息 → {episode}",
    restored: "已恢复",
    error: "出错：{message}",
    lang: "EN",
  },
};

/** Example prompts shown as chips; they exercise remember, preferences, recall and tools. */
export const SUGGESTIONS = {
  en: [
    "Remember: my sister's birthday is May 3",
    "I prefer short answers",
    "When is my sister's birthday?",
    "What's the weather in Chengdu?",
  ],
  zh: ["记住：我对花生过敏", "我更喜欢简短的回答", "我对什么过敏？", "成都今天天气怎么样？"],
};

let lang = "en";

/** Picks the language: ?lang= wins, then navigator.language (zh-* → Chinese). */
export function initialLang(search = location.search, nav = navigator.language) {
  const asked = new URLSearchParams(search).get("lang");
  if (asked === "zh" || asked === "en") return asked;
  return /^zh\b/i.test(nav ?? "") ? "zh" : "en";
}

export const getLang = () => lang;

/** The string `key` with `{name}` placeholders filled from `vars`. */
export function t(key, vars = {}) {
  const s = STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
  return s.replace(/\{(\w+)\}/g, (_, k) => (k in vars ? String(vars[k]) : `{${k}}`));
}

/** Switches the language and rewrites every marked element in `root`. */
export function setLang(next, root = document) {
  lang = next === "zh" ? "zh" : "en";
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  document.title = t("title");
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
  for (const el of root.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
}
