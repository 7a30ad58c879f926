// A provider's stream (LanguageModelV4/V3 stream parts), passed through part
// by part while the response content is collected in the order its parts
// started, each with the provider metadata it came with (start and end
// parts carry item ids and encrypted reasoning): the same content a
// non-streamed call returns.
//
// `onEnd(outcome)` runs once: at the finish part, which is passed on only
// after it settled, with its report in providerMetadata.agentMemory; when
// the stream ends without one, fails, or is cancelled. An aborted or failed
// stream's outcome keeps its text and reasoning and drops its tool calls
// (nothing will answer them); its report counts them.

export const isAbort = (e) => e?.name === "AbortError" || e?.name === "TimeoutError";

export function recorded(source, onEnd) {
  const reader = source.getReader();
  const parts = []; // text and reasoning blocks, tool calls: in order
  const blocks = new Map(); // block id → its part
  const open = new Set(); // tool inputs started, no complete call yet
  let failed = false;
  let ended;

  const block = (type, p) => {
    const part = { type, text: "", ...(p.providerMetadata && { providerMetadata: p.providerMetadata }) };
    blocks.set(`${type}:${p.id}`, part);
    parts.push(part);
  };
  const extend = (type, p, text = "") => {
    const part = blocks.get(`${type}:${p.id}`) ?? (block(type, p), blocks.get(`${type}:${p.id}`));
    part.text += text;
    if (p.providerMetadata) part.providerMetadata = merge(part.providerMetadata, p.providerMetadata);
  };
  const end = (status, usage) => {
    if (ended === undefined) {
      const complete = status === "finished" && !failed;
      const calls = parts.filter((p) => p.type === "tool-call").length;
      const content = complete ? parts : parts.filter((p) => p.type !== "tool-call").map(({ type, text }) => ({ type, text }));
      ended = onEnd({
        status: complete ? "finished" : status === "finished" ? "failed" : status,
        content,
        usage,
        droppedToolCalls: open.size + (complete ? 0 : calls),
      });
    }
    return ended;
  };

  return new ReadableStream({
    async pull(controller) {
      let r;
      try {
        r = await reader.read();
      } catch (error) {
        // A memory error wins: it is the one the app can act on.
        await end(isAbort(error) ? "aborted" : "failed").then(
          () => controller.error(error),
          (e) => controller.error(e),
        );
        return;
      }
      if (r.done) {
        await end("failed").then(
          () => controller.close(),
          (e) => controller.error(e),
        );
        return;
      }
      const part = r.value;
      switch (part.type) {
        case "text-start":
        case "reasoning-start":
          block(part.type.slice(0, -"-start".length), part);
          break;
        case "text-delta":
        case "reasoning-delta":
          extend(part.type.slice(0, -"-delta".length), part, part.delta);
          break;
        case "text-end":
        case "reasoning-end":
          extend(part.type.slice(0, -"-end".length), part);
          break;
        case "tool-input-start":
          if (!part.providerExecuted) open.add(part.id);
          break;
        case "tool-call":
          open.delete(part.toolCallId);
          if (!part.providerExecuted) parts.push(part);
          break;
        case "error":
          failed = true;
          break;
        case "finish": {
          let report;
          try {
            report = await end("finished", part.usage);
          } catch (e) {
            controller.error(e);
            await reader.cancel(e).catch(() => {});
            return;
          }
          controller.enqueue({ ...part, providerMetadata: { ...part.providerMetadata, agentMemory: report } });
          return;
        }
      }
      controller.enqueue(part);
    },
    async cancel(reason) {
      // After the finish part or an error, the outcome was settled and told already.
      const told = ended !== undefined;
      try {
        await end("aborted");
      } catch (e) {
        if (!told) throw e;
      } finally {
        await reader.cancel(reason);
      }
    },
  });
}

// Provider metadata of a block's start and end, merged per provider.
function merge(a = {}, b = {}) {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = { ...out[k], ...v };
  return out;
}
