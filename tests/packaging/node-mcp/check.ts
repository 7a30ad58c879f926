// Type-checks agent-memory/mcp against the installed declarations and the SDK's (tsc --strict).
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { MemoryController } from "agent-memory";
import { createMemoryServer, SERVER_INFO, type MemoryServerOptions } from "agent-memory/mcp";

export function check(): Server {
  const options: MemoryServerOptions = {
    memory: () => MemoryController.create({ model: "gpt-4o" }),
    recallTokens: 300,
    onError: (e: unknown) => void e,
  };
  // @ts-expect-error: memory is a function returning a controller
  createMemoryServer({ memory: 42 });
  const name: "agent-memory" = SERVER_INFO.name;
  void name;
  return createMemoryServer(options);
}
