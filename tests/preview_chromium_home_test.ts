/**
 * Headless Chromium keeps what it writes by itself (crash-report settings, PulseAudio and
 * dconf state, font caches) inside its throwaway profile: a run leaves nothing in `HOME`.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { browserEnvironment, findChromium } from "../lib/preview/chromium.ts";
import { runCommand } from "./fakes/cli_io.ts";

const CHROMIUM = findChromium(Deno.env.get("SYN_CHROMIUM"));
const ROOT = fileURLToPath(new URL("../", import.meta.url));

Deno.test("browserEnvironment() puts HOME and the XDG folders in the profile and keeps no keys", () => {
  const env = browserEnvironment(
    "/tmp/p",
    (name) =>
      ({ PATH: "/bin", HOME: "/root", OPENAI_API_KEY: "sk-secret" } as Record<string, string>)[
        name
      ],
  );
  assert.equal(env.HOME, "/tmp/p");
  assert.equal(env.XDG_CONFIG_HOME, "/tmp/p/config");
  assert.equal(env.PATH, "/bin");
  assert.equal(env.OPENAI_API_KEY, undefined);
});

Deno.test({
  name: "a Chromium syn launches leaves nothing in HOME",
  ignore: !CHROMIUM,
  async fn() {
    const home = await Deno.makeTempDir({ prefix: "syn_chromium_home_" });
    try {
      const script = `${home}/probe.ts`;
      await Deno.writeTextFile(
        script,
        `import { launchChromium } from ${JSON.stringify(`${ROOT}lib/preview/mod.ts`)};
await using chromium = await launchChromium(${JSON.stringify(CHROMIUM)});
const page = await chromium.browser.newPage();
await page.goto("data:text/html,<canvas></canvas>");
await page.close();
`,
      );
      const run = await runCommand(
        [Deno.execPath(), "run", "-A", "--config", `${ROOT}deno.json`, script],
        [],
        { env: { HOME: home }, cwd: home },
      );
      assert.equal(run.code, 0, run.stderr);
      const left = [...Deno.readDirSync(home)].map((entry) => entry.name);
      assert.deepEqual(left, ["probe.ts"]);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
});
