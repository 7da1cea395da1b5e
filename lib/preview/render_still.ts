import type { Browser } from "playwright-core";

/** A still's size and moment. */
export interface StillOptions {
  width: number;
  height: number;
  /** The moment drawn: `u_time` and every modulation at this many milliseconds. */
  atMs: number;
  /** How long to wait for the page, in milliseconds (default 30 s). */
  timeoutMs?: number;
}

/** A rendered still, or why there is none. */
export type StillResult =
  | { ok: true; png: Uint8Array }
  | { ok: false; state: string; problems: string[] };

interface PageReport {
  state: string;
  problems: string[];
  hasCanvas: boolean;
}

/**
 * Renders document `index` of a running preview server as a PNG of exactly
 * `width`×`height` pixels: the canvas, or for a document without a shader its panel. A
 * document whose page reports problems (invalid, a shader that does not compile) gives
 * them instead.
 */
export async function renderStill(
  browser: Browser,
  baseUrl: string,
  index: number,
  options: StillOptions,
): Promise<StillResult> {
  const page = await browser.newPage({
    viewport: { width: options.width + 32, height: options.height + 32 },
    deviceScaleFactor: 1,
  });
  const pageErrors: string[] = [];
  page.on("pageerror", (error) => pageErrors.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") pageErrors.push(`console: ${message.text()}`);
  });
  try {
    const query = `?doc=${index}&still=1&t=${options.atMs}&w=${options.width}&h=${options.height}`;
    await page.goto(new URL(query, baseUrl).href, { timeout: options.timeoutMs ?? 30_000 });
    const report = await waitForReport(page, options.timeoutMs ?? 30_000, pageErrors);
    if (report.state !== "ready") {
      return { ok: false, state: report.state, problems: report.problems };
    }
    // A document without a shader (a lone tone, haptic or control bundle) is drawn as its
    // panel: what it plays, its parameters and its mappings.
    const png = report.hasCanvas
      ? decodeDataUrl(
        await page.evaluate(() =>
          (globalThis as unknown as { synPreview: { png(): string } }).synPreview.png()
        ),
      )
      : new Uint8Array(
        await page.screenshot({
          type: "png",
          clip: { x: 0, y: 0, width: options.width, height: options.height },
        }),
      );
    return { ok: true, png };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, state: "error", problems: [message.split("\n")[0]] };
  } finally {
    await page.close().catch(() => {});
  }
}

async function waitForReport(
  page: import("playwright-core").Page,
  timeoutMs: number,
  pageErrors: string[],
): Promise<PageReport> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const report = await page.evaluate(() => {
      const hooks = (globalThis as { synPreview?: { state: string; problems: string[] } })
        .synPreview;
      const page = globalThis as unknown as {
        document: { getElementById(id: string): { hidden: boolean } | null };
      };
      const canvas = page.document.getElementById("canvas");
      return {
        state: hooks?.state ?? "loading",
        problems: hooks?.problems ?? [],
        hasCanvas: canvas !== null && !canvas.hidden,
      };
    });
    if (report.state !== "loading") return report;
    if (pageErrors.length > 0) return { state: "error", problems: pageErrors, hasCanvas: false };
    if (Date.now() > deadline) {
      const problems = ["the page did not finish loading", ...pageErrors];
      return { state: "timeout", problems, hasCanvas: false };
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The bytes of a `data:image/png;base64,…` URL. */
function decodeDataUrl(url: string): Uint8Array {
  const base64 = url.slice(url.indexOf(",") + 1);
  return Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
}
