// Rank files ship gzip-compressed. A server may already have decoded them
// (Content-Encoding), so gzip is detected by its magic bytes, not assumed.
// `inflate` is the runtime's decompressor: DecompressionStream by default;
// Node's entry passes zlib's, which is 3× faster on a cold start.
export async function gunzip(bytes, inflate = inflateStream) {
  const data =
    bytes instanceof Uint8Array
      ? bytes
      : ArrayBuffer.isView(bytes)
        ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
        : new Uint8Array(bytes);
  if (data[0] !== 0x1f || data[1] !== 0x8b) return data;
  return inflate(data);
}

async function inflateStream(data) {
  const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
