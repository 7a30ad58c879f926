// Types of js/storage/storage-file.js, which only the Node entry exports.
import type { StorageAdapter } from "./storage.js";

/**
 * One file per key under `dir` (Node entry only): key segments become
 * directories, the last segment a `.v` file; writes go to a temp file that is
 * fsynced and renamed over the target. Each escaped key segment may be at
 * most 238 bytes (`STORAGE_KEY_TOO_LONG` beyond).
 */
export declare function nodeFileStorage(dir: string): StorageAdapter;
