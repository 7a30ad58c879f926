// Child process for the file adapter's crash test: saves 256 KiB values to
// one key as fast as it can until killed, saying so after each. Every value is one repeated byte,
// so a reader can tell a whole value from a torn one.
import { nodeFileStorage } from "../../../dist/node.js";

const [dir, seed] = process.argv.slice(2);
const storage = nodeFileStorage(dir);
process.send?.("ready");
for (let i = Number(seed); ; i += 7) {
  await storage.save(["crash", "k"], new Uint8Array(256 * 1024).fill(i & 0xff));
  process.send?.("saved"); // the test kills after a number of these, not after a sleep
}
