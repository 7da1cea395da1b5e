/**
 * The preview page's files: plain modules and a style sheet under `page/`, served as they
 * are (no build step, no CDN) and embedded in the compiled binary like the schemas.
 */
const PAGE_FOLDER = new URL("./page/", import.meta.url);

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};

/** Every file the page is made of, by name. */
export const PAGE_FILE_NAMES = [
  "index.html",
  "preview.css",
  "main.js",
  "controls.js",
  "modulation.js",
  "parameters.js",
  "shader_stage.js",
  "tone_voice.js",
] as const;

/** One served file. */
export interface PageFile {
  bytes: Uint8Array;
  contentType: string;
}

/** Reads the page's files (a fixed list: nothing else under the folder is ever served). */
export async function loadPageFiles(): Promise<Map<string, PageFile>> {
  const files = new Map<string, PageFile>();
  for (const name of PAGE_FILE_NAMES) {
    const bytes = await Deno.readFile(new URL(name, PAGE_FOLDER));
    files.set(name, { bytes, contentType: TYPES[name.slice(name.lastIndexOf("."))] });
  }
  return files;
}
