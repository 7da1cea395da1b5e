import { parseJson, SynError } from "../core/mod.ts";

/** Files larger than this are refused before parsing (the validator's 1 MiB cap). */
export const MAX_INPUT_BYTES = 1024 * 1024;

/**
 * Reads and parses a JSON file (an edge: it reads the file system). Refuses files over
 * `maxBytes` before parsing; errors are `SynError`s naming the file (and line/column).
 */
export async function readJsonFile(path: string, maxBytes = MAX_INPUT_BYTES): Promise<unknown> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    throw new SynError("io_error", `Cannot read file: ${path} (${(error as Error).message})`, {
      path,
    });
  }
  if (!info.isFile) throw new SynError("io_error", `Not a file: ${path}`, { path });
  if (info.size > maxBytes) {
    throw new SynError("payload_too_large", `File is larger than ${maxBytes} bytes: ${path}`, {
      path,
      size: info.size,
    });
  }
  return parseJson(await Deno.readTextFile(path), path);
}
