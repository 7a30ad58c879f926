// How a call ended, as a string a test compares. Imports nothing: the test
// Workers use it inside workerd too.

/** "resolved", or "<name> <code>" of the rejection. */
export const settled = (p) =>
  p.then(
    () => "resolved",
    (e) => `${e.name} ${e.code}`,
  );

/** "returned", or "<name> <code>" of what `f` threw. */
export function thrown(f) {
  try {
    f();
    return "returned";
  } catch (e) {
    return `${e.name} ${e.code}`;
  }
}
