"use client";
// A client component using the installed package (its `browser` entry,
// bundled by Turbopack or webpack): after hydration it runs the shared report
// in the browser. No next.config: nothing here is set up for agent-memory.
import { useEffect } from "react";
import modules from "../subpaths.js";
import { runInPage } from "../page.js";

export default function Page() {
  useEffect(() => {
    runInPage(modules);
  }, []);
  return <pre id="out">running…</pre>;
}
