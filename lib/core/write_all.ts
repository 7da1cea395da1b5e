/** Something that takes bytes and says how many it took (`Deno.FsFile`, `Deno.Conn`, …). */
export interface ByteWriter {
  write(bytes: Uint8Array): Promise<number>;
}

const encoder = new TextEncoder();

/** Writes every byte of `data` (text as UTF-8): `write` may take fewer than it was given. */
export async function writeAll(writer: ByteWriter, data: Uint8Array | string): Promise<void> {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  let written = 0;
  while (written < bytes.length) written += await writer.write(bytes.subarray(written));
}
