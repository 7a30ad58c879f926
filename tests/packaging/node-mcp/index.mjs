// A Node app that installed agent-memory with its optional peer
// @modelcontextprotocol/sdk: starts the package's bin, agent-memory-mcp, as
// Claude Desktop starts it (the SDK's client over stdio), remembers, then
// recalls in a second process; prints one JSON line.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import * as mcp from "agent-memory/mcp";

const dir = mkdtempSync(join(tmpdir(), "am-mcp-consumer-"));

async function session(f) {
  const client = new Client({ name: "consumer", version: "1.0.0" });
  const command = join(process.cwd(), "node_modules", ".bin", "agent-memory-mcp");
  await client.connect(new StdioClientTransport({ command, args: ["--dir", dir, "--namespace", "alice"], stderr: "pipe" }));
  try {
    return await f(client);
  } finally {
    await client.close();
  }
}

const text = (r) => r.content.map((c) => c.text).join("");
const tools = await session(async (client) => {
  await client.callTool({ name: "remember", arguments: { text: "Alice prefers window seats.", key: "seat" } });
  return (await client.listTools()).tools.map((t) => t.name);
});
const recalled = await session(async (client) => text(await client.callTool({ name: "recall", arguments: { query: "window seats" } })));

console.log(JSON.stringify({ exports: Object.keys(mcp).sort(), tools, recalled }));
