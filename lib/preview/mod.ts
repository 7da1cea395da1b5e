/**
 * @module
 * The asset preview: a local page that renders a Synesthetic asset live (the shader in
 * WebGL2, controls, modulations, the tone as a Web Audio voice, haptics) from plain
 * modules served by syn, and stills of it through headless Chromium.
 *
 * ```ts
 * import { loadPageFiles, previewDocument, startPreviewServer } from "./mod.ts";
 * import { loadSchemaStore } from "../schema/mod.ts";
 * const store = await loadSchemaStore();
 * const document = previewDocument(store, "a.json", { name: "x" });
 * await using server = startPreviewServer({ files: await loadPageFiles(), documents: [document] });
 * console.log(server.url); // http://127.0.0.1:<port>/
 * ```
 */
export { type PreviewDocument, previewDocument } from "./preview_document.ts";
export { loadPageFiles, PAGE_FILE_NAMES, type PageFile } from "./page_files.ts";
export {
  handlePreviewRequest,
  type PreviewContent,
  previewResponse,
  type PreviewServer,
  startPreviewServer,
} from "./preview_server.ts";
export {
  findChromium,
  type HeadlessChromium,
  launchChromium,
  type LaunchOptions,
  NO_CHROMIUM,
} from "./chromium.ts";
export { renderStill, type StillOptions, type StillResult } from "./render_still.ts";
