import type { Browser } from "playwright-core";

/** Where Chromium usually is, in order (Debian's real binary first, then wrappers). */
const CANDIDATES = [
  "/usr/lib/chromium/chromium",
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
];

/** Why no browser could be found, in words a user can act on. */
export const NO_CHROMIUM = "no Chromium found: install one (Debian: apt-get install chromium) " +
  "or set SYN_CHROMIUM to its path";

/**
 * The Chromium to drive: `chosen` (`SYN_CHROMIUM`) when set (it must exist), else the first installed
 * of the usual places; undefined when there is none.
 */
export function findChromium(chosen: string | undefined): string | undefined {
  const isFile = (path: string) => {
    try {
      return Deno.statSync(path).isFile;
    } catch {
      return false;
    }
  };
  if (chosen) return isFile(chosen) ? chosen : undefined;
  return CANDIDATES.find(isFile);
}

/** A headless Chromium and the throwaway profile folder it runs in. */
export interface HeadlessChromium {
  browser: Browser;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts headless Chromium with WebGL2 on the CPU (SwiftShader) and every background
 * connection cut: it may reach 127.0.0.1 only. playwright-core is loaded here, on first
 * use, so commands that never render do not pay for it.
 */
export async function launchChromium(executablePath: string): Promise<HeadlessChromium> {
  // playwright-core probes for WSL at load by testing /proc/sys/fs/binfmt_misc paths; Deno
  // refuses /proc paths without --allow-all, so a run with narrower permissions would fail
  // there. With this variable set the probe runs only when asked,
  // and Chromium on WSL is not something this launcher needs to know about.
  Deno.env.set("__IS_WSL_TEST__", "1");
  const { chromium } = await import("playwright-core");
  const profile = await Deno.makeTempDir({ prefix: "syn-chromium-" });
  let browser: Browser;
  try {
    browser = await chromium.launch({
      executablePath,
      ignoreDefaultArgs: true,
      timeout: 30_000,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--enable-unsafe-swiftshader",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-features=NetworkTimeServiceQuerying",
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
        "--autoplay-policy=user-gesture-required",
        `--user-data-dir=${profile}`,
        "--remote-debugging-pipe",
        "--no-startup-window",
      ],
    });
  } catch (error) {
    await Deno.remove(profile, { recursive: true }).catch(() => {});
    throw error;
  }
  const close = async () => {
    await browser.close().catch(() => {});
    await Deno.remove(profile, { recursive: true }).catch(() => {});
  };
  return { browser, close, [Symbol.asyncDispose]: close };
}
