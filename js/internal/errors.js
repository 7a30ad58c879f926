// MemoryError: the one error type of the package. The wasm module makes its
// errors as plain `Error`s named "MemoryError" with a `code` (a JS class
// imported into the module would cost a snippet file in every bundle), and
// so did 0.1's adapters; `instanceof MemoryError` recognises all of them by
// that shape, in any realm (a worker's or an iframe's errors too).

/** Whether `value` is an error of this package: name "MemoryError" and a string `code`. */
export function isMemoryError(value) {
  return typeof value === "object" && value !== null && value.name === "MemoryError" && typeof value.code === "string";
}

export class MemoryError extends Error {
  constructor(code, message, options) {
    super(message, options);
    this.name = "MemoryError";
    this.code = code;
  }

  static [Symbol.hasInstance](value) {
    return isMemoryError(value);
  }
}

/**
 * The package's one MemoryError factory: `code`, `message`; `cause` (when
 * given) is the failure underneath; `fields` are set on the error (a hook's
 * `status`, `attempts`). A hook's HTTP failure passes fields and never a
 * cause, which could hold the Authorization header.
 */
export function memoryError(code, message, cause, fields) {
  const error = new MemoryError(code, message, cause === undefined ? undefined : { cause });
  return fields === undefined ? error : Object.assign(error, fields);
}
