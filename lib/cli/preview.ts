import {
  basenameOf,
  dirnameOf,
  errorMessage,
  extnameOf,
  joinPath,
  neutralizeTerminalText,
  resolvePath,
  SynError,
  UsageError,
} from "../core/mod.ts";
import {
  findChromium,
  launchChromium,
  loadPageFiles,
  NO_CHROMIUM,
  type PreviewDocument,
  previewDocument,
  renderStill,
  startPreviewServer,
} from "../preview/mod.ts";
import { numberFlag, parseCommandArgs } from "./args.ts";
import { type CliIo, EXIT } from "./io.ts";
import { expandArgument } from "./_document_arguments.ts";
import { servePreview } from "./_preview_serve.ts";
import { Interruption } from "./_stop_signals.ts";
import { readDocument } from "./_read_document.ts";
import { storeFromEnv } from "./_schema_store.ts";

export const help = `syn preview — see and hear an asset in the browser

Usage:
  syn preview <asset.json|folder|->... [--port N] [--open]
  syn preview <asset.json|folder|->... --png <out.png|folder> [--size WxH] [--at-ms T]

A folder stands for every *.json directly in it, sorted (as for syn validate).

Serves a page on 127.0.0.1 (a free port; the URL is printed on stdout) that renders
the asset live: the shader in WebGL2 with its uniforms, a slider for every input
parameter, the control mappings driving uniforms from the mouse, wheel and keys (each
mapping listed, inverted axes marked), modulations animating their targets, the tone
as a Web Audio voice approximating its Tone.js synth and effects (press Play: browsers
start sound only after a click), and the haptic profile (navigator.vibrate where the
device has it, a meter otherwise). Every document is validated first: an invalid one
is shown with its errors and not rendered. Shader compile errors are listed with the
line numbers of the asset's own source. Ctrl-C stops the server.

A lone shader, tone, haptic, control or rule document previews too; its schema comes
from its "$schema" marker, or --schema.

With --png, nothing is served for long: each document is drawn once in headless
Chromium at time --at-ms and written as a PNG (for several documents, --png names a
folder and each still is <name>.png in it). A document without a shader is drawn as
its panel, at the still's width, with every value whole and only the sections it has.
Needs Chromium: apt-get install chromium, or SYN_CHROMIUM=/path/to/chrome.

Options:
  --port N        listen on this port (default: a free one)
  --open          also open the URL in the system browser
  --schema NAME   check against NAME instead of the document's marker
  --png PATH      write a still instead of serving
  --size WxH      still size in pixels (default 800x600, at most 4096x4096)
  --at-ms T       the moment drawn, in milliseconds (default 0)
  -h, --help      show this help

Exit codes: 0 served (until stopped) or every still written; 1 a document was invalid
or could not be drawn (its errors are printed; its still is not written); 2 bad usage,
an unreadable document, or no Chromium for --png.

Environment:
  SYN_CHROMIUM      the Chromium or Chrome binary used for --png
  SYN_SCHEMAS_DIR   use the schema files in this folder instead of the embedded set

Examples:
  syn examples get canonical-baseline.json --raw > baseline.json
  syn preview baseline.json --open
  syn generate "a pulsing blue circle" --preview
  syn generate "angry red fire" --out assets/ > /dev/null
  syn preview assets/ --png thumbs/ --size 320x240 --at-ms 1500
`;

const OPTIONS = {
  port: { type: "string" },
  open: { type: "boolean" },
  schema: { type: "string" },
  png: { type: "string" },
  size: { type: "string" },
  "at-ms": { type: "string" },
} as const;

const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/** `800x600` as numbers, each 1…4096. */
export function parseSize(text: string): { width: number; height: number } {
  const match = /^(\d{1,4})[x×](\d{1,4})$/i.exec(text.trim());
  const width = Number(match?.[1]);
  const height = Number(match?.[2]);
  if (!match || width < 1 || height < 1 || width > 4096 || height > 4096) {
    throw new UsageError(`--size takes WIDTHxHEIGHT, each 1…4096: ${text}`);
  }
  return { width, height };
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("preview", args, OPTIONS);
  if (positionals.length === 0) throw new UsageError("give an asset file, or - for stdin");
  if (positionals.filter((name) => name === "-").length > 1) {
    throw new UsageError("standard input can be read once: give - at most once");
  }
  const port = numberFlag("port", values.port, { integer: true, min: 0, max: 65535 }) ?? 0;
  const atMs = numberFlag("at-ms", values["at-ms"], { min: 0, max: 86_400_000 }) ?? 0;
  const size = parseSize(values.size ?? "800x600");
  if (values.png === undefined && (values.size !== undefined || values["at-ms"] !== undefined)) {
    throw new UsageError("--size and --at-ms apply to --png only");
  }
  const store = await storeFromEnv(io);
  if (values.schema !== undefined && !store.hasSchema(values.schema)) {
    throw new UsageError(`unknown schema: ${values.schema} (see 'syn schemas list')`);
  }
  const documents: PreviewDocument[] = [];
  for (const name of await documentNames(io, positionals)) {
    let document: unknown;
    try {
      document = await readDocument(io, name, {
        stdinName: "<stdin>",
        maxBytes: MAX_DOCUMENT_BYTES,
      });
    } catch (error) {
      if (!(error instanceof SynError)) throw error;
      await io.stderr(`syn preview: ${error.message}\n`);
      return EXIT.usage;
    }
    documents.push(
      previewDocument(store, name === "-" ? "<stdin>" : name, document, values.schema),
    );
  }
  if (values.png !== undefined) {
    return await writeStills(io, documents, values.png, { ...size, atMs });
  }
  await servePreview(io, documents, { port, open: values.open === true, announce: "stdout" });
  return EXIT.ok;
}

/** The documents the arguments name: a folder stands for the `*.json` files directly in it. */
async function documentNames(io: CliIo, positionals: string[]): Promise<string[]> {
  const names: string[] = [];
  for (const argument of positionals) {
    const inputs = await expandArgument(io, argument);
    const problem = inputs.find((input) => input.problem !== undefined)?.problem;
    if (problem !== undefined) throw new SynError("io_error", problem);
    if (inputs.length === 0) throw new UsageError(`no *.json files in the folder: ${argument}`);
    names.push(...inputs.map((input) => input.shown));
  }
  return names;
}

/** Where each still goes: the path itself for one document, else `<folder>/<stem>.png`. */
async function stillPaths(io: CliIo, documents: PreviewDocument[], out: string): Promise<string[]> {
  const target = resolvePath(io.cwd, out);
  const isFolder = out.endsWith("/") ||
    (await Deno.stat(target).then((info) => info.isDirectory, () => false));
  if (documents.length > 1 && !isFolder && extnameOf(out) !== "") {
    throw new UsageError("several documents need --png to name a folder (it is created)");
  }
  if (documents.length === 1 && !isFolder) return [target];
  await Deno.mkdir(target, { recursive: true }).catch((error) => {
    throw new SynError("write_failed", `cannot make the folder ${target}: ${writeProblem(error)}`);
  });
  const used = new Set<string>();
  return documents.map((document, index) => {
    const base = basenameOf(document.name);
    let stem = base.slice(0, base.length - extnameOf(base).length).replace(/[^\w.-]+/g, "_") ||
      "stdin";
    if (used.has(stem)) stem = `${stem}-${index}`;
    used.add(stem);
    return joinPath(target, `${stem}.png`);
  });
}

/** Why a file or folder could not be written, in words. */
function writeProblem(error: unknown): string {
  if (error instanceof Deno.errors.NotFound) return "no such folder";
  if (error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.NotCapable) {
    return "permission denied";
  }
  if (error instanceof Deno.errors.NotADirectory) return "a file is in the way";
  return errorMessage(error);
}

/** Writes a still atomically (a temporary file renamed over it); a failure names the folder. */
async function writeStill(path: string, png: Uint8Array): Promise<void> {
  const staged = `${path}.${crypto.randomUUID()}.tmp`;
  try {
    await Deno.writeFile(staged, png);
    await Deno.rename(staged, path);
  } catch (error) {
    await Deno.remove(staged).catch(() => {});
    throw new SynError(
      "write_failed",
      `cannot write ${basenameOf(path)} into the folder ${dirnameOf(path)}: ${writeProblem(error)}`,
    );
  }
}

async function writeStills(
  io: CliIo,
  documents: PreviewDocument[],
  out: string,
  options: { width: number; height: number; atMs: number },
): Promise<number> {
  const chromiumPath = findChromium(io.config.chromium);
  if (!chromiumPath) {
    const chosen = io.config.chromium;
    await io.stderr(
      `syn preview: ${chosen ? `SYN_CHROMIUM is not a file: ${chosen}` : NO_CHROMIUM}\n`,
    );
    return EXIT.usage;
  }
  const paths = await stillPaths(io, documents, out);
  // Ctrl-C ends the run after the still in hand: what was written is reported, nothing is
  // blamed on the asset a stopped browser was drawing.
  using interruption = new Interruption();
  await using server = startPreviewServer({ files: await loadPageFiles(), documents });
  await using chromium = await launchChromium(chromiumPath, { environment: io.environment?.() });
  const results = [];
  for (const [index, document] of documents.entries()) {
    if (interruption.interrupted) break;
    if (!document.ok) {
      const name = neutralizeTerminalText(document.name);
      await io.stderr(`syn preview: ${name}: not a valid ${document.schema}:\n`);
      for (const error of document.errors) {
        await io.stderr(`  ${neutralizeTerminalText(`${error.path || "/"}: ${error.msg}`)}\n`);
      }
      results.push({ file: document.name, ok: false, errors: document.errors });
      continue;
    }
    const still = await renderStill(chromium.browser, server.url, index, options).catch(
      (error) => {
        if (interruption.interrupted) return undefined;
        throw error;
      },
    );
    if (still === undefined || (!still.ok && interruption.interrupted)) break;
    if (!still.ok) {
      await io.stderr(`syn preview: ${neutralizeTerminalText(document.name)}: not drawn:\n`);
      // Compiler messages quote the asset's source: untrusted text.
      for (const problem of still.problems) {
        await io.stderr(`  ${neutralizeTerminalText(problem)}\n`);
      }
      results.push({ file: document.name, ok: false, problems: still.problems });
      continue;
    }
    await writeStill(paths[index], still.png);
    results.push({
      file: document.name,
      ok: true,
      png: paths[index],
      width: options.width,
      height: options.height,
      at_ms: options.atMs,
    });
  }
  if (interruption.interrupted) {
    const written = results.filter((result) => result.ok).length;
    await io.stdout(JSON.stringify({ ok: false, interrupted: true, results }, null, 2) + "\n");
    await io.stderr(
      `syn preview: interrupted by ${interruption.signal}: ${written} of ${documents.length} ` +
        `still(s) written\n`,
    );
    return interruption.exitCode;
  }
  const ok = results.every((result) => result.ok);
  const report = results.length === 1 ? results[0] : { ok, results };
  await io.stdout(JSON.stringify(report, null, 2) + "\n");
  return ok ? EXIT.ok : EXIT.failure;
}
