// Helpers shared by the benchmarks: timing, medians, markdown tables.
//
// Every benchmark is a script that prints a markdown section on stdout
// (`node bench/tokens.mjs`); bench/run.mjs runs them one by one, each in a
// fresh Node process, and joins their output into bench/results.md.

import { fileURLToPath, pathToFileURL } from "node:url";

export const ROOT = fileURLToPath(new URL("../", import.meta.url));
/** Our package, built by `node scripts/build.mjs`. */
export const OURS = pathToFileURL(ROOT + "dist/node.js").href;

export const utf8Bytes = (s) => Buffer.byteLength(s, "utf8");

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Milliseconds of `runs` timed calls of `fn` after `warmup` untimed ones. */
export async function timeRuns(fn, { runs = 5, warmup = 1 } = {}) {
  for (let i = 0; i < warmup; i++) await fn();
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return ms;
}

/** A markdown table; cells are printed as given. */
export function table(headers, rows, leftColumns = 1) {
  const line = (cells) => `| ${cells.join(" | ")} |`;
  const rule = headers.map((h, i) => (i < leftColumns ? "---" : "---:"));
  return [line(headers), line(rule), ...rows.map(line)].join("\n");
}

export const fixed = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");
export const pct = (x, digits = 1) => `${fixed(100 * x, digits)}%`;
export const kib = (bytes) => `${fixed(bytes / 1024, 1)} KiB`;
export const mib = (bytes) => `${fixed(bytes / (1 << 20), 2)} MiB`;
export const int = (n) => Math.round(n).toLocaleString("en-US");

/** True when the module at `url` is the script Node was started with. */
export const isMain = (url) => process.argv[1] && url === pathToFileURL(process.argv[1]).href;

/** Met / not met marker for a target line. */
export const verdict = (ok) => (ok ? "**met**" : "**not met**");
