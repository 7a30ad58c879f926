// Types of the Node entry (js/node.js): what every entry exports, and
// nodeFileStorage. package.json's `exports` gives these to TypeScript under
// the "node" condition (moduleResolution node16/nodenext, or bundler with
// customConditions ["node"]); the others get index.d.ts.
export * from "./index.js";
export { nodeFileStorage } from "./storage/storage-file.js";
