// A Node route handler using the installed package (its `node` entry, bundled
// into the server build): GET runs the shared report on the server.
import modules from "../../../subpaths.js";
import { describeError, report } from "../../../conversation.js";

export const runtime = "nodejs";
export const dynamic = "force-dynamic"; // run per request, never at build time

export async function GET() {
  try {
    return Response.json(await report(modules));
  } catch (e) {
    return Response.json({ error: describeError(e) }, { status: 500 });
  }
}
