// Rank assets ship gzip-compressed. A server may already have decoded them
// (Content-Encoding), so gzip is detected by its magic bytes, not assumed.
export async function gunzip(bytes) {
  const data = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (data[0] !== 0x1f || data[1] !== 0x8b) return data;
  const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
