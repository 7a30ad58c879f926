// memoryTools: the controller's memory tools (remember, recall, forget) as
// an AI SDK tool set. A thin wrapper: the definitions are
// memory.toolDefinitions(), each call is memory.callTool(name, input); what
// the tools check and answer lives in the core (controller/tools.rs). The
// input schema is a Standard Schema with its JSON Schema, which ai 6 and 7
// take as they take a zod schema, so this entry imports nothing from `ai`.
import { memoryError } from "../../internal/errors.js";

/** The memory tools for `generateText({ tools: { ...memoryTools(memory) } })`. */
export function memoryTools(memory, options = {}) {
  if (typeof memory?.toolDefinitions !== "function" || typeof memory?.callTool !== "function") {
    throw memoryError("INVALID_INPUT", "memoryTools expects a MemoryController as its first argument");
  }
  if (options === null || typeof options !== "object") throw memoryError("INVALID_INPUT", "memoryTools options must be an object");
  for (const k of Object.keys(options))
    if (k !== "recallTokens") throw memoryError("INVALID_INPUT", `memoryTools: unknown option ${JSON.stringify(k)}`);
  const callOptions = options.recallTokens === undefined ? undefined : { recallTokens: options.recallTokens };
  return Object.fromEntries(
    memory.toolDefinitions().map(({ function: f }) => [
      f.name,
      {
        description: f.description,
        inputSchema: schemaOf(f.parameters),
        // The SDK has parsed the model's arguments; the core checks them and
        // answers the model's mistakes with an "Error: …" text.
        execute: (input) => memory.callTool(f.name, JSON.stringify(input ?? null), callOptions),
      },
    ]),
  );
}

// A Standard Schema (https://standardschema.dev) that lets every value
// through (callTool checks them) and gives the tool's JSON Schema, a fresh
// copy each time: the SDK adds to what it is given.
function schemaOf(parameters) {
  const json = () => structuredClone(parameters);
  return {
    "~standard": {
      version: 1,
      vendor: "agent-memory",
      validate: (value) => ({ value }),
      jsonSchema: { input: json, output: json },
    },
  };
}
