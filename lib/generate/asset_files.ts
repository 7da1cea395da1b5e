import { dirnameOf, type StagedFile, stageFile } from "../core/mod.ts";

/**
 * The file side of persisting an asset: creates its folder and stages the file next to
 * its place (see core `stageFile`). The pipeline receives this as a dependency, so tests
 * run it without touching the disk.
 */
export async function stageAssetFile(path: string, text: string): Promise<StagedFile> {
  await Deno.mkdir(dirnameOf(path), { recursive: true });
  return await stageFile(path, text);
}
