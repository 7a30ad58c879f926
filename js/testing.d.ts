// Types of `agent-memory/testing`, the storage adapter acceptance suite.
import type { StorageAdapter } from "./storage/storage.js";

/** One case's outcome; `error` says why a case failed. */
export interface StorageAdapterTestResult {
  name: string;
  ok: boolean;
  error?: string;
}

export interface StorageAdapterTestOptions {
  /** Run only the cases with these names (see `storageAdapterTestNames`). */
  only?: string[];
  /** A case that takes longer fails with "timed out" (default 60000). */
  timeoutMs?: number;
}

/** Names of every case, in the order they run. */
export declare const storageAdapterTestNames: readonly string[];

/**
 * Runs every case against a fresh adapter from `makeAdapter` (which must hold
 * no keys). Never rejects because a case failed: each result says why.
 */
export declare function runStorageAdapterTests(
  makeAdapter: () => StorageAdapter | Promise<StorageAdapter>,
  options?: StorageAdapterTestOptions,
): Promise<StorageAdapterTestResult[]>;

/**
 * Runs the suite and rejects with one `Error` listing every failed case.
 *
 * # Errors
 * Rejects when any case fails.
 */
export declare function assertStorageAdapter(
  makeAdapter: () => StorageAdapter | Promise<StorageAdapter>,
  options?: StorageAdapterTestOptions,
): Promise<StorageAdapterTestResult[]>;

/**
 * Test-only: makes the package's WebAssembly module trap the way a bug in
 * it would (a Rust panic), to test what an app does then. `"now"` traps in
 * this call, which throws; `"next"` traps in the next queued controller
 * call (`add`, `remember`, …), which rejects. Either way every controller
 * of that instance then fails with `INTERNAL`, and the next
 * `MemoryController.create` starts a fresh instance that reloads storage.
 * Never call it in production code.
 *
 * # Errors
 * Throws `INTERNAL` (`"now"`), `NOT_READY` before the module is loaded,
 * `INVALID_INPUT` for another `when`.
 */
export declare function forceTrapForTest(when?: "now" | "next"): void;
