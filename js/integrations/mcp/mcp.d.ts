// Types of the MCP server (js/integrations/mcp/mcp.js), entry `agent-memory/mcp`. Needs the
// optional peer dependency `@modelcontextprotocol/sdk` (1.x).
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { MemoryController } from "../../wasm/agent_memory.js";

export interface MemoryServerOptions {
  /**
   * The controller the tools work on, asked for on every request (list or
   * call): return the same one while it works, a new one after it failed
   * with `INSTANCE_RESET`. A rejection answers that request with an MCP
   * InternalError.
   */
  memory: () => MemoryController | Promise<MemoryController>;
  /** Most tokens of a `recall` or `search` answer (at least 100). Default 500. */
  recallTokens?: number;
  /** Sees each error of the host's side (storage, a closed or reset controller) before it is answered as an MCP InternalError. */
  onError?: (error: unknown) => void;
}

/** The server's `serverInfo`. */
export declare const SERVER_INFO: { name: "agent-memory"; version: string };

/**
 * An MCP server, not yet connected (`await server.connect(transport)`),
 * with the tools `remember`, `recall`, `forget` and `search` (`{ query,
 * scope?: "thread" | "user", k? }`), their JSON Schemas from
 * `memory.toolDefinitions({ search: true })` and their answers from
 * `memory.callTool`: the same budgets and escaping. A model's mistake in
 * the arguments is a tool result with `isError: true` and changes nothing;
 * an unknown tool is an InvalidParams error.
 *
 * @throws MemoryError `INVALID_INPUT` for options other than these.
 */
export declare function createMemoryServer(options: MemoryServerOptions): Server;
