// A Worker using the installed package (its `workerd` entry, bundled by
// wrangler): GET / runs the shared report and answers it.
import modules from "../subpaths.js";
import { describeError, report } from "../conversation.js";

export default {
  async fetch() {
    try {
      return Response.json(await report(modules));
    } catch (e) {
      return Response.json({ error: describeError(e) }, { status: 500 });
    }
  },
};
