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

/** Variables the browser keeps from syn's environment: where programs are, language, time. */
const KEPT_VARIABLES = ["PATH", "LANG", "LC_ALL", "TZ", "TMPDIR"];

/**
 * The browser's environment: `HOME` and the XDG folders inside its throwaway profile, so
 * what Chromium and the libraries it loads write by themselves (`~/.config/chromium`'s crash
 * reports, `~/.config/pulse`, `~/.cache/dconf`, font caches) goes away with the profile and
 * never lands in the user's home; nothing else of syn's environment (keys included).
 */
export function browserEnvironment(
  profile: string,
  variable: (name: string) => string | undefined,
): Record<string, string> {
  const kept = KEPT_VARIABLES.flatMap((name) => {
    const value = variable(name);
    return value === undefined ? [] : [[name, value] as const];
  });
  return {
    ...Object.fromEntries(kept),
    HOME: profile,
    XDG_CONFIG_HOME: `${profile}/config`,
    XDG_CACHE_HOME: `${profile}/cache`,
    XDG_DATA_HOME: `${profile}/data`,
    XDG_STATE_HOME: `${profile}/state`,
    XDG_RUNTIME_DIR: `${profile}/runtime`,
  };
}

/** What the browser is started with besides its executable. */
export interface LaunchOptions {
  /**
   * syn's environment as the configuration read it: the browser keeps only `PATH`, the
   * language and the time zone of it (see `browserEnvironment`). Default: none of it.
   */
  environment?: Readonly<Record<string, string>>;
}

/**
 * Starts headless Chromium with WebGL2 on the CPU (SwiftShader) and every background
 * connection cut: it may reach 127.0.0.1 only. playwright-core is loaded here, on first
 * use, so commands that never render do not pay for it. Nothing of this process's own
 * environment is read or changed: what the browser gets comes from `options.environment`.
 */
export async function launchChromium(
  executablePath: string,
  options: LaunchOptions = {},
): Promise<HeadlessChromium> {
  const { chromium } = await import("playwright-core");
  const profile = await Deno.makeTempDir({ prefix: "syn-chromium-" });
  let browser: Browser;
  try {
    await Deno.mkdir(`${profile}/runtime`, { mode: 0o700 });
    browser = await chromium.launch({
      executablePath,
      ignoreDefaultArgs: true,
      timeout: 30_000,
      env: browserEnvironment(profile, (name) => options.environment?.[name]),
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
