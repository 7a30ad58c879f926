// The memory inspector: pure rendering of a snapshot (stats, history,
// episodes, facts, procedures, the last context, compaction events) into
// the right-hand panel. It never calls the controller, so every refresh shows
// one consistent state, and it builds DOM nodes (never innerHTML) because
// everything shown is user text.
import { t } from "./i18n.js";

/** `h("div", { class: "x" }, child, "text")`: a tiny element builder. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false || v === null) continue;
    if (k === "style") el.style.cssText = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}

/** Text of a message for display: string content, text parts, or tool calls. */
export function messageText(m) {
  if (typeof m.content === "string" && m.content) return m.content;
  if (Array.isArray(m.content)) return m.content.map((p) => p.text ?? `[${p.type}]`).join(" ");
  if (m.tool_calls) return m.tool_calls.map((c) => `→ ${c.function.name}(${c.function.arguments})`).join(" ");
  return "";
}

const clip = (s, n) => ([...s].length > n ? [...s].slice(0, n - 1).join("") + "…" : s);
const shortId = (id) => id.replace(/^([a-z])-[0-9a-z]+-/, "$1");
const fmt = (n) => n.toLocaleString("en-US");
const usd = (x) => (x === 0 ? "$0" : x < 0.01 ? `$${x.toFixed(6)}` : `$${x.toFixed(4)}`);

// Budget bar order follows the order of the context itself, top to bottom.
const SECTIONS = ["system", "procedures", "tools", "preferences", "summary", "recent", "knowledge", "overhead"];

function card(id, titleKey, ...body) {
  return h("section", { class: "card", id }, h("h2", {}, t(titleKey)), ...body);
}

function budgetCard(ctx) {
  if (!ctx) return card("budget", "budget", h("p", { class: "empty" }, t("budgetNone")));
  const s = ctx.sections;
  const tokens = {
    system: s.system.tokens,
    procedures: s.procedures,
    tools: s.tools,
    preferences: s.preferences,
    knowledge: s.knowledge.tokens,
    summary: s.summary.tokens,
    recent: s.recent.tokens,
    overhead: s.overhead,
  };
  const max = s.budget.maxTokens;
  const parts = [...SECTIONS.map((k) => [k, tokens[k]]), ["free", s.budget.available - ctx.tokens], ["reserve", s.budget.reserveOutput]];
  const bar = h(
    "div",
    { class: "bar", role: "img", "aria-label": t("budget") },
    parts
      .filter(([, n]) => n > 0)
      .map(([k, n]) =>
        h("span", { class: `seg seg-${k}`, "data-section": k, style: `flex-grow:${n}`, title: `${t(`sec_${k}`)}: ${fmt(n)}` }),
      ),
  );
  const legend = h(
    "ul",
    { class: "legend" },
    parts.map(([k, n]) =>
      h(
        "li",
        { class: n > 0 ? "" : "zero", "data-section": k },
        h("i", { class: `swatch seg-${k}` }),
        h("span", {}, t(`sec_${k}`)),
        h("b", {}, fmt(n)),
      ),
    ),
  );
  const total = h(
    "p",
    { class: "sub", id: "budget-total" },
    t("budgetTotal", { tokens: fmt(ctx.tokens), available: fmt(s.budget.available), reserve: fmt(s.budget.reserveOutput), max: fmt(max) }),
  );
  const share = ctx.tokens > 0 ? `${Math.round((100 * ctx.cache.tokens) / ctx.tokens)}%` : "0%";
  const cache = h("p", { class: "sub", id: "budget-cache" }, t("budgetCache", { tokens: fmt(ctx.cache.tokens), share }));
  return card("budget", "budget", bar, legend, total, cache);
}

function statsCard(stats, simulatedModel) {
  const m = stats.messages;
  const calls = stats.cost.byModel.reduce((n, x) => n + x.calls, 0);
  const cell = (label, value, id) => h("div", { class: "stat", id }, h("b", {}, value), h("span", {}, label));
  return card(
    "stats",
    "stats",
    h(
      "div",
      { class: "stat-grid" },
      cell(t("st_messages"), fmt(m.total), "stat-total"),
      cell(t("st_pinned"), fmt(m.pinned)),
      cell(t("st_working"), fmt(m.working)),
      cell(t("st_archived"), fmt(m.archived), "stat-archived"),
      cell(t("st_episodes"), fmt(stats.episodes)),
      cell(t("st_calls"), fmt(calls)),
      cell(t("st_cost"), usd(stats.cost.usd), "stat-cost"),
      cell(t("st_cached"), `${Math.round(100 * stats.cost.cachedShare)}%`, "stat-cached"),
    ),
    simulatedModel ? h("p", { class: "sub" }, t("st_simulated", { model: simulatedModel })) : null,
  );
}

function workingCard(stats, history, ctx, threshold) {
  const limit = stats.tokens.workingLimit;
  const used = stats.tokens.working;
  const meter = h(
    "div",
    { class: "meter" },
    h("span", { class: "meter-fill", style: `width:${Math.min(100, (100 * used) / limit)}%` }),
    h("span", { class: "meter-mark", style: `left:${threshold * 100}%` }),
  );
  const live = history.filter((x) => x.place !== "archived");
  const recent = new Set(ctx?.sections.recent.messageIds ?? []);
  // Only turns older than the context's first recent message were left out;
  // newer ones (the reply to it) were simply added after it was built.
  const firstRecent = live.findIndex((x) => recent.has(x.id));
  const leftOut = (x, i) => ctx && x.place === "working" && firstRecent >= 0 && i < firstRecent;
  const indexed = live.map((x, i) => [x, i]);
  const shown = indexed.filter(([x]) => x.place === "pinned").concat(indexed.filter(([x]) => x.place === "working").slice(-10));
  const hiddenCount = live.length - shown.length;
  const rows = shown.map(([x, i]) =>
    h(
      "li",
      {
        class: `msg-row ${x.place}`,
        title: x.place === "pinned" ? t("st_pinned") : leftOut(x, i) ? t("notInContext") : recent.has(x.id) ? t("inContext") : "",
      },
      h("span", { class: `role role-${x.message.role}` }, x.place === "pinned" ? t("st_pinned") : x.message.role),
      h("span", { class: `text ${leftOut(x, i) ? "out" : ""}` }, clip(messageText(x.message), 90)),
      h("span", { class: "tok" }, fmt(x.tokens)),
    ),
  );
  return card(
    "working",
    "working",
    meter,
    h("p", { class: "sub" }, t("workingMeter", { tokens: fmt(used), limit: fmt(limit), threshold: fmt(Math.round(threshold * limit)) })),
    live.length
      ? h("ol", { class: "rows" }, hiddenCount > 0 ? h("li", { class: "more" }, t("moreEarlier", { n: hiddenCount })) : null, rows)
      : h("p", { class: "empty" }, t("workingEmpty")),
  );
}

function episodicCard(episodes, ctx) {
  const inCtx = new Set(ctx?.sections.summary.episodeIds ?? []);
  const items = episodes
    .slice()
    .reverse()
    .map((e) =>
      h(
        "li",
        { class: `episode ${inCtx.has(e.id) ? "in" : ""}`, "data-id": e.id },
        h(
          "div",
          { class: "ep-head" },
          h("b", {}, shortId(e.id)),
          h("span", { class: `badge src-${e.summarySource}` }, t(`src_${e.summarySource}`)),
          h("span", { class: "muted" }, t("messagesN", { n: e.messageIds.length }) + ` · ${fmt(e.tokens)} tok`),
        ),
        h(
          "div",
          { class: "importance", title: `${t("importance")} ${e.importance.toFixed(2)}` },
          h("span", { class: "muted" }, t("importance")),
          h("span", { class: "imp-bar" }, h("span", { style: `width:${e.importance * 100}%` })),
          h("b", {}, e.importance.toFixed(2)),
        ),
        h(
          "details",
          {},
          h("summary", {}, clip((e.keyPoints.length ? e.keyPoints : e.summary.split("\n")).join(" · "), 120)),
          h("pre", {}, e.summary),
        ),
      ),
    );
  return card("episodic", "episodic", items.length ? h("ol", { class: "rows" }, items) : h("p", { class: "empty" }, t("episodicEmpty")));
}

function semanticCard(facts, ctx) {
  const used = new Set(ctx?.sections.knowledge.ids ?? []);
  const order = { preference: 0, fact: 1, chunk: 2 };
  const items = facts
    .slice()
    .sort((a, b) => order[a.kind] - order[b.kind] || b.createdAt - a.createdAt)
    .map((f) =>
      h(
        "li",
        {
          class: `fact ${f.kind} ${used.has(f.id) ? "in" : ""}`,
          "data-kind": f.kind,
          title: used.has(f.id) || f.kind === "preference" ? t("inContext") : "",
        },
        h("span", { class: `badge kind-${f.kind}` }, t(`kind_${f.kind}`)),
        h("span", { class: "text" }, f.key ? h("b", {}, `${f.key}: `) : null, clip(f.text, 140)),
      ),
    );
  return card("semantic", "semantic", items.length ? h("ul", { class: "rows" }, items) : h("p", { class: "empty" }, t("semanticEmpty")));
}

function proceduralCard(procedures) {
  return card(
    "procedural",
    "procedural",
    h("h3", {}, t("rules")),
    h(
      "ol",
      { class: "plain" },
      procedures.rules.map((r) => h("li", {}, typeof r === "string" ? r : r.text)),
    ),
    h("h3", {}, t("tools")),
    h(
      "ul",
      { class: "plain" },
      procedures.tools.map((tool) => {
        const f = tool.function;
        return h(
          "li",
          {},
          h("code", {}, `${f.name}(${Object.keys(f.parameters?.properties ?? {}).join(", ")})`),
          f.description ? ` — ${f.description}` : "",
        );
      }),
    ),
  );
}

function compactionCard(events) {
  const items = events
    .slice()
    .reverse()
    .map((e) =>
      h(
        "li",
        { class: e.restored ? "restored" : "live" },
        h("time", {}, e.restored ? t("restored") : new Date(e.at).toLocaleTimeString()),
        " ",
        // Events restored from storage are rebuilt from episodes, which keep no token counts.
        e.restored
          ? t("compactionRestored", { n: e.messages, episode: shortId(e.episodeId) })
          : t("compactionLine", { n: e.messages, episode: shortId(e.episodeId), before: e.tokensBefore, after: e.tokensAfter }),
      ),
    );
  return card(
    "compactions",
    "compactions",
    items.length ? h("ol", { class: "log" }, items) : h("p", { class: "empty" }, t("compactionsEmpty")),
  );
}

/** Replaces the inspector's content with the snapshot `s`. */
export function renderInspector(root, s) {
  // Two independent column stacks (not grid rows), so a long episode list
  // does not stretch the cards beside it.
  root.replaceChildren(
    budgetCard(s.ctx),
    statsCard(s.stats, s.simulatedModel),
    h(
      "div",
      { class: "cols" },
      h(
        "div",
        { class: "col" },
        workingCard(s.stats, s.history, s.ctx, s.threshold),
        semanticCard(s.facts, s.ctx),
        proceduralCard(s.procedures),
      ),
      h("div", { class: "col" }, episodicCard(s.episodes, s.ctx), compactionCard(s.compactions)),
    ),
  );
}
