import {
  loadPageFiles,
  type PreviewDocument,
  type PreviewServer,
  startPreviewServer,
} from "../preview/mod.ts";
import { neutralizeTerminalText } from "../core/mod.ts";
import type { CliIo } from "./io.ts";
import { onStopSignals } from "./_stop_signals.ts";

/** How `syn preview` and `syn generate --preview` serve the page. */
export interface ServeOptions {
  port: number;
  /** Launch the system browser on the URL. */
  open: boolean;
  /** Where the URL lines go: stdout for `preview`, stderr for `generate` (stdout is JSON). */
  announce: "stdout" | "stderr";
  /** Stops serving (tests); otherwise Ctrl-C or SIGTERM does. */
  stop?: AbortSignal;
  /** Told the server once it listens (tests). */
  onServing?: (server: PreviewServer) => void;
}

/** The command that opens a URL in the system browser here, if this platform has one. */
function openerFor(os: typeof Deno.build.os): string[] | undefined {
  if (os === "darwin") return ["open"];
  if (os === "windows") return ["cmd", "/c", "start", ""];
  if (os === "linux" || os === "freebsd" || os === "netbsd") return ["xdg-open"];
  return undefined;
}

async function openBrowser(url: string): Promise<string | undefined> {
  const opener = openerFor(Deno.build.os);
  if (!opener) return "no way to open a browser on this platform";
  try {
    const child = new Deno.Command(opener[0], {
      args: [...opener.slice(1), url],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    const status = await child.status;
    return status.success ? undefined : `${opener[0]} exited with ${status.code}`;
  } catch {
    return `${opener[0]} is not installed`;
  }
}

/**
 * Serves the preview page of `documents` on 127.0.0.1 until Ctrl-C/SIGTERM (or `stop`),
 * printing one URL per document.
 */
export async function servePreview(
  io: CliIo,
  documents: readonly PreviewDocument[],
  options: ServeOptions,
): Promise<void> {
  const server = startPreviewServer({ files: await loadPageFiles(), documents }, options.port);
  // Listening before the URL is announced: a script that reads it and sends SIGTERM at once
  // still gets a clean stop (exit 0), not the default signal death.
  const stopped = stopRequest(options.stop);
  const say = (line: string) => options.announce === "stdout" ? io.stdout(line) : io.stderr(line);
  const urls = documents.length === 1
    ? [server.url]
    : documents.map((_, index) => `${server.url}?doc=${index}`);
  for (const [index, url] of urls.entries()) {
    const document = documents[index];
    const name = neutralizeTerminalText(document.name);
    const note = document.ok
      ? ""
      : ` (not a valid ${document.schema}: the page lists ${document.errors.length} error(s))`;
    await say(options.announce === "stdout" ? `${url}\n` : `syn: preview at ${url}\n`);
    // With several URLs, each is named; a document that will show errors always is.
    if (note || urls.length > 1) await io.stderr(`syn preview: ${name}${note}\n`);
  }
  await io.stderr("syn preview: serving on 127.0.0.1 only; Ctrl-C stops\n");
  if (options.open) {
    const problem = await openBrowser(urls[0]);
    if (problem) {
      await io.stderr(
        `syn preview: could not open a browser (${problem}): open the URL yourself\n`,
      );
    }
  }
  options.onServing?.(server);
  await stopped.promise;
  stopped.release();
  await server.close();
}

/** Resolves on SIGINT/SIGTERM or the abort signal; `release` removes the signal listeners. */
function stopRequest(stop: AbortSignal | undefined): { promise: Promise<void>; release(): void } {
  const { promise, resolve } = Promise.withResolvers<void>();
  const release = onStopSignals(() => resolve());
  stop?.addEventListener("abort", () => resolve(), { once: true });
  if (stop?.aborted) resolve();
  return { promise, release };
}
