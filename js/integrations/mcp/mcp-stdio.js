#!/usr/bin/env node
// agent-memory-mcp: the memory MCP server over stdio, for Claude Desktop,
// Cursor and any client that starts a local server with one command line:
//
//   npx -y -p agent-memory -p @modelcontextprotocol/sdk agent-memory-mcp --dir ./memory --namespace NAME
//
// One namespace per process, stored by nodeFileStorage under --dir. stdout
// carries the protocol only: everything this process says goes to stderr.
// The SDK is an optional peer dependency of the package (browser and Worker
// users do not install it); without it this says how to run with it.
import { parseArgs } from "node:util";
import { MemoryController, nodeFileStorage } from "../../node.js";

const USAGE = `usage: agent-memory-mcp --dir DIR --namespace NAME [--thread NAME] [--model MODEL] [--recall-tokens N]

  --dir            directory of the memory's files (created if missing)
  --namespace      the user whose memory this is (storage prefix)
  --thread         the conversation searched by scope "thread" (default "default")
  --model          model whose tokenizer counts the budgets (default gpt-4o)
  --recall-tokens  most tokens of a recall or search answer (default 500, at least 100)`;

const NO_SDK = `agent-memory-mcp needs @modelcontextprotocol/sdk beside agent-memory. Run it as
  npx -y -p agent-memory -p @modelcontextprotocol/sdk agent-memory-mcp --dir DIR --namespace NAME
or install both: npm install agent-memory @modelcontextprotocol/sdk`;

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

function options() {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        dir: { type: "string" },
        namespace: { type: "string" },
        thread: { type: "string" },
        model: { type: "string", default: "gpt-4o" },
        "recall-tokens": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (e) {
    fail(`${e.message}\n${USAGE}`);
  }
  if (parsed.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  if (!parsed.dir || !parsed.namespace) fail(`--dir and --namespace are required\n${USAGE}`);
  const recall = parsed["recall-tokens"];
  if (recall !== undefined && !/^\d{1,7}$/.test(recall)) fail(`--recall-tokens must be a whole number\n${USAGE}`);
  return { ...parsed, recallTokens: recall === undefined ? undefined : Number(recall) };
}

async function main() {
  const opts = options();
  let mcp, stdio;
  try {
    [mcp, stdio] = await Promise.all([import("./mcp.js"), import("@modelcontextprotocol/sdk/server/stdio.js")]);
  } catch (e) {
    if (e?.code === "ERR_MODULE_NOT_FOUND" && /@modelcontextprotocol\/sdk/.test(e.message)) fail(NO_SDK);
    throw e;
  }
  // Opened once, before the first message is read: a bad directory or
  // namespace stops the process with its MemoryError, not the first call.
  const memory = await MemoryController.create({
    namespace: opts.namespace,
    thread: opts.thread,
    model: opts.model,
    storage: nodeFileStorage(opts.dir),
  });
  const server = mcp.createMemoryServer({ memory: () => memory, recallTokens: opts.recallTokens });
  const transport = new stdio.StdioServerTransport();
  // The client closing stdin ends the session: saved writes are on disk
  // already (each tool call resolves once saved); close settles the rest.
  server.onclose = () => memory.close().finally(() => process.exit(0));
  process.stdin.on("end", () => server.close());
  await server.connect(transport);
}

main().catch((e) => fail(`agent-memory-mcp: ${e?.code ? `${e.code}: ` : ""}${e?.message ?? e}`));
