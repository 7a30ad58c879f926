// The package's error type (js/internal/errors.js).
import type { MemoryErrorCode } from "../wasm/agent_memory.js";

/**
 * Every error the package throws or rejects with: `name` "MemoryError" and a
 * stable `code` (see README). `instanceof MemoryError` holds for all of them,
 * including those the wasm module makes and those from another realm.
 */
export declare class MemoryError extends Error {
  name: "MemoryError";
  code: MemoryErrorCode;
  constructor(code: MemoryErrorCode, message: string, options?: { cause?: unknown });
  static [Symbol.hasInstance](value: unknown): value is MemoryError;
}

/** Whether `value` is one of the package's errors (name "MemoryError", a string `code`). */
export declare function isMemoryError(value: unknown): value is MemoryError;
