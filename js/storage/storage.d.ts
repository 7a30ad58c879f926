// Types of the storage adapter contract and the built-in adapters every
// entry exports. The adapters are hand-written JS (js/storage-*.js), so their
// types live here rather than coming from the Rust side. nodeFileStorage is
// in the Node entry only: storage-file.d.ts.

/**
 * Where the controller keeps its bytes. An adapter moves bytes and
 * interprets nothing.
 *
 * - Keys are arrays of arbitrary strings (any characters, empty segments
 *   allowed); a key has at least one segment.
 * - A prefix matches whole segments: `["AA"]` matches `["AA"]` and
 *   `["AA", "x"]`, never `["AAB"]`; `[]` matches every key.
 * - `load` and `loadRange` return exactly the bytes saved, as fresh copies.
 *
 * # Errors
 * Built-in adapters reject with an `Error` whose `name` is `"MemoryError"`
 * and whose `code` is `STORAGE_ERROR`, `STORAGE_QUOTA` (the backend is full),
 * `STORAGE_KEY_TOO_LONG` (the key exceeds the backend's key limit) or
 * `INVALID_INPUT` (a key that is not a string array, a value that is not a
 * `Uint8Array`).
 */
export interface StorageAdapter {
  /** The bytes saved under `key`, or `undefined`. */
  load(key: string[]): Promise<Uint8Array | undefined>;
  /** Stores a copy of `data` under `key`, replacing any previous value. */
  save(key: string[], data: Uint8Array): Promise<void>;
  /** Deletes `key`; a missing key is not an error. Keys below it stay. */
  remove(key: string[]): Promise<void>;
  /** Every key that starts with the segments of `prefix`, with its bytes, in no particular order. */
  loadRange(prefix: string[]): Promise<{ key: string[]; data: Uint8Array }[]>;
  /** Deletes every key that starts with the segments of `prefix`. */
  removeRange(prefix: string[]): Promise<void>;
}

/** An in-memory adapter (a Map in this process); the default. */
export declare function memoryStorage(): StorageAdapter;

/**
 * `globalThis.localStorage`, values base64, items named `${prefix}:…`.
 * A full origin rejects with `STORAGE_QUOTA` and writes nothing.
 */
export declare function localStorageAdapter(prefix?: string): StorageAdapter;

/** One object store in the IndexedDB database `dbName`; every call is one transaction. */
export declare function indexedDBStorage(dbName?: string): StorageAdapter;

/** The part of a Workers KV binding the adapter uses (a `KVNamespace` fits). */
export interface KVNamespaceLike {
  get(key: string, type: "arrayBuffer"): Promise<ArrayBuffer | null>;
  put(key: string, value: ArrayBuffer | ArrayBufferView): Promise<void>;
  delete(key: string): Promise<void>;
  list(options?: { prefix?: string; cursor?: string }): Promise<{ keys: { name: string }[]; list_complete: boolean; cursor?: string }>;
}

/**
 * A Workers KV namespace. KV is eventually consistent: writes can take up to
 * about 60 s to be seen in other locations. Encoded keys are limited to 512
 * bytes (`STORAGE_KEY_TOO_LONG` beyond).
 */
export declare function cloudflareKVStorage(kv: KVNamespaceLike): StorageAdapter;

/** The part of a Durable Object's `ctx.storage` the adapter uses (`DurableObjectStorage` fits). */
export interface DurableObjectStorageLike {
  get(key: string): Promise<unknown>;
  put(entries: Record<string, unknown>): Promise<void>;
  delete(keys: string[]): Promise<number>;
  list(options?: { start?: string; startAfter?: string; end?: string; prefix?: string; limit?: number }): Promise<Map<string, unknown>>;
}

/**
 * A Durable Object's storage: strongly consistent; values above 127 KiB are
 * split into pieces transparently. Encoded keys are limited to 2043 bytes.
 */
export declare function durableObjectStorage(storage: DurableObjectStorageLike): StorageAdapter;
