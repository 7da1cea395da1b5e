/**
 * `syn preview` and `syn generate --preview` from outside: the served page (URL on stdout,
 * loopback only, fixed files, Host checked, CSP), stills written as PNGs of the asked
 * size, clear failures for bad input and for a missing Chromium.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  findChromium,
  handlePreviewRequest,
  loadPageFiles,
  PAGE_FILE_NAMES,
  previewDocument,
} from "../lib/preview/mod.ts";
import { loadSchemaStore } from "../lib/schema/mod.ts";
import { childEnv, killAfter } from "./fakes/child_env.ts";
import { runSyn, SELF_COMMAND, startSyn } from "./fakes/cli_io.ts";

const BASELINE = new URL("../schemas/examples/canonical-baseline.json", import.meta.url).pathname;
const CHROMIUM = findChromium(Deno.env.get("SYN_CHROMIUM"));
if (!CHROMIUM) console.warn("skipping the preview --png tests: no Chromium installed");

Deno.test("the preview handler serves the page, its fixed files and the documents, nothing else", async () => {
  const store = await loadSchemaStore();
  const document = previewDocument(store, "a.json", JSON.parse(await Deno.readTextFile(BASELINE)));
  const content = { files: await loadPageFiles(), documents: [document] };
  const get = (path: string, init: RequestInit & { host?: string; origin?: string } = {}) =>
    handlePreviewRequest(
      new Request(`http://127.0.0.1:4000${path}`, {
        ...init,
        headers: {
          host: init.host ?? "127.0.0.1:4000",
          ...(init.origin ? { origin: init.origin } : {}),
        },
      }),
      content,
      4000,
    );
  const page = get("/");
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-security-policy")!, /script-src 'self'/);
  assert.match(await page.text(), /<canvas id="canvas"/);
  for (const name of PAGE_FILE_NAMES) assert.equal(get(`/page/${name}`).status, 200, name);
  assert.equal(get("/page/main.js").headers.get("content-type"), "text/javascript; charset=utf-8");
  assert.equal(get("/page/../preview_server.ts").status, 404);
  assert.equal(get("/page/%2e%2e/mod.ts").status, 404);
  assert.equal(get("/page/page_logic_test.ts").status, 404);
  const asset = await get("/asset.json?doc=0").json();
  assert.equal(asset.ok, true);
  assert.equal(asset.schema, "synesthetic-asset");
  assert.equal(asset.view.shader.name, "CircleSDF");
  assert.equal(get("/asset.json?doc=1").status, 404);
  assert.equal(get("/asset.json?doc=-1").status, 404);
  assert.equal(get("/", { host: "evil.example:4000" }).status, 421, "DNS rebinding");
  const rebound = { host: "evil.example:4000", origin: "http://evil.example:4000" };
  assert.equal(get("/asset.json?doc=0", rebound).status, 421, "DNS rebinding, matching Origin");
  assert.equal(get("/asset.json?doc=0", { origin: "http://evil.example" }).status, 403);
  assert.equal(get("/", { host: "localhost:4000" }).status, 200);
  assert.equal(get("/", { method: "POST" }).status, 405);
});

Deno.test("a lone shader or tone document previews as its part of an asset; an invalid one renders nothing", async () => {
  const store = await loadSchemaStore();
  const shader = previewDocument(store, "s.json", {
    $schema: "../shader.schema.json",
    name: "s",
    vertex_shader: "void main() {}",
    fragment_shader: "void main() {}",
  });
  assert.equal(shader.schema, "shader");
  assert.equal(shader.ok, true, JSON.stringify(shader.errors));
  assert.deepEqual(Object.keys(shader.view), ["shader"]);
  const invalid = previewDocument(store, "x.json", { name: "x", shader: { name: "s" } });
  assert.equal(invalid.ok, false);
  assert.deepEqual(invalid.view, {});
  assert.ok(invalid.errors.some((error) => error.path === "/shader"));
  const forced = previewDocument(store, "x.json", { name: "t" }, "tone");
  assert.equal(forced.schema, "tone");
});

Deno.test("syn preview serves on 127.0.0.1, prints the URL, and stops cleanly on SIGTERM", async () => {
  const serving = await startSyn(["preview", BASELINE], "stdout", /^(.*)\n/);
  const url = serving.match[1];
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  const page = await fetch(url);
  assert.equal(page.status, 200);
  await page.body?.cancel();
  const asset = await (await fetch(new URL("/asset.json", url))).json();
  assert.equal(asset.ok, true);
  const { code, stderr } = await serving.stop();
  assert.equal(code, 0, stderr);
  assert.match(stderr, /serving on 127\.0\.0\.1 only; Ctrl-C stops/);
});

Deno.test("syn preview: bad usage and unreadable input exit 2 with one clear line", async () => {
  const cases: [string[], RegExp][] = [
    [["preview"], /give an asset file/],
    [["preview", BASELINE, "--size", "800"], /--size/],
    [["preview", BASELINE, "--size", "800x600"], /apply to --png only/],
    [["preview", BASELINE, "--png", "x.png", "--size", "0x10"], /--size takes WIDTHxHEIGHT/],
    [["preview", BASELINE, "--schema", "nope"], /unknown schema: nope/],
    [["preview", "/nonexistent/a.json"], /file not found/],
    [["preview", "-", "-"], /at most once/],
  ];
  for (const [args, message] of cases) {
    const result = await runSyn(args);
    assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, message);
  }
});

Deno.test("syn preview --png says clearly when there is no Chromium", async () => {
  const dir = await Deno.makeTempDir();
  const result = await runSyn(["preview", BASELINE, "--png", join(dir, "a.png")], {
    env: { SYN_CHROMIUM: "/nonexistent/chromium" },
  });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /SYN_CHROMIUM is not a file: \/nonexistent\/chromium/);
  assert.deepEqual([...Deno.readDirSync(dir)], [], "nothing written");
  await Deno.remove(dir, { recursive: true });
});

/** Width and height from a PNG's IHDR chunk. */
function pngSize(bytes: Uint8Array): [number, number] {
  assert.deepEqual([...bytes.slice(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], "PNG signature");
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  return [view.getUint32(16), view.getUint32(20)];
}

Deno.test({
  name: "syn preview --png writes stills of the asked size and moment, from files and stdin",
  ignore: !CHROMIUM,
  async fn() {
    const dir = await Deno.makeTempDir();
    const env = { SYN_CHROMIUM: CHROMIUM! };
    const early = await runSyn(
      ["preview", BASELINE, "--png", join(dir, "early.png"), "--size", "320x200"],
      { env },
    );
    assert.equal(early.code, 0, early.stderr);
    const report = JSON.parse(early.stdout);
    assert.deepEqual([report.ok, report.width, report.height, report.at_ms], [true, 320, 200, 0]);
    const earlyBytes = await Deno.readFile(join(dir, "early.png"));
    assert.deepEqual(pngSize(earlyBytes), [320, 200]);
    const late = await runSyn(
      ["preview", "-", "--png", join(dir, "late.png"), "--size", "320x200", "--at-ms", "2000"],
      { env, stdin: await Deno.readTextFile(BASELINE) },
    );
    assert.equal(late.code, 0, late.stderr);
    const lateBytes = await Deno.readFile(join(dir, "late.png"));
    assert.notDeepEqual(lateBytes, earlyBytes, "the baseline's colour cycles with u_time");
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name:
    "syn preview --png of several documents fills a folder and reports the ones it could not draw",
  ignore: !CHROMIUM,
  async fn() {
    const dir = await Deno.makeTempDir();
    const invalid = join(dir, "invalid.json");
    await Deno.writeTextFile(invalid, JSON.stringify({ name: "x", shader: { name: "s" } }));
    const broken = join(dir, "broken.json");
    const asset = JSON.parse(await Deno.readTextFile(BASELINE));
    asset.shader.fragment_shader = "void main() {\n  gl_FragColor = vec4(1.0)\n}";
    await Deno.writeTextFile(broken, JSON.stringify(asset));
    const out = join(dir, "thumbs");
    const result = await runSyn(
      ["preview", BASELINE, invalid, broken, "--png", `${out}/`, "--size", "64x48"],
      { env: { SYN_CHROMIUM: CHROMIUM! } },
    );
    assert.equal(result.code, 1, result.stderr);
    const report = JSON.parse(result.stdout);
    assert.deepEqual(report.results.map((r: { ok: boolean }) => r.ok), [true, false, false]);
    assert.deepEqual([...Deno.readDirSync(out)].map((e) => e.name), ["canonical-baseline.png"]);
    assert.match(result.stderr, /invalid\.json: not a valid synesthetic-asset/);
    assert.match(result.stderr, /broken\.json: not drawn:\n {2}fragment shader, line 3: /);
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name:
    "syn preview --png takes a folder of assets, as validate does, and names a folder it cannot write",
  ignore: !CHROMIUM,
  async fn() {
    const dir = await Deno.makeTempDir();
    const assets = join(dir, "assets");
    await Deno.mkdir(assets);
    const baseline = await Deno.readTextFile(BASELINE);
    await Deno.writeTextFile(join(assets, "one.json"), baseline);
    await Deno.writeTextFile(join(assets, "two.json"), baseline);
    await Deno.writeTextFile(join(assets, "notes.txt"), "not an asset");
    const env = { SYN_CHROMIUM: CHROMIUM! };
    const result = await runSyn(
      ["preview", "assets/", "--png", "thumbs/", "--size", "64x48"],
      { env, cwd: dir },
    );
    assert.equal(result.code, 0, result.stderr);
    const names = [...Deno.readDirSync(join(dir, "thumbs"))].map((entry) => entry.name).sort();
    assert.deepEqual(names, ["one.png", "two.png"]);
    // A file where the folder should be: the message names the folder, no temporary file.
    await Deno.writeTextFile(join(dir, "blocked"), "");
    const blocked = await runSyn(
      ["preview", "assets/one.json", "--png", "blocked/one.png", "--size", "64x48"],
      { env, cwd: dir },
    );
    assert.equal(blocked.code, 1, blocked.stderr);
    assert.match(
      blocked.stderr,
      /^syn preview: cannot write one\.png into the folder .*\/blocked: a file is in the way\n$/,
    );
    assert.doesNotMatch(blocked.stderr, /\.tmp/);
    const empty = await runSyn(["preview", "thumbs/"], { env, cwd: dir });
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /no \*\.json files in the folder: thumbs\//);
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name: "Ctrl-C during preview --png reports the stills written, blames no asset and exits 130",
  ignore: !CHROMIUM,
  async fn() {
    const dir = await Deno.makeTempDir();
    const baseline = await Deno.readTextFile(BASELINE);
    const names = Array.from({ length: 40 }, (_, index) => `a${String(index).padStart(2, "0")}`);
    for (const name of names) await Deno.writeTextFile(join(dir, `${name}.json`), baseline);
    const child = new Deno.Command(SELF_COMMAND[0], {
      args: [...SELF_COMMAND.slice(1), "preview", ".", "--png", "thumbs/", "--size", "64x48"],
      clearEnv: true,
      env: childEnv({ SYN_CHROMIUM: CHROMIUM!, HOME: dir }),
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const cancel = killAfter(child);
    const output = child.output();
    try {
      const thumbs = join(dir, "thumbs");
      const deadline = Date.now() + 60_000;
      const written = () => {
        try {
          return [...Deno.readDirSync(thumbs)].filter((e) => e.name.endsWith(".png")).length;
        } catch {
          return 0;
        }
      };
      while (written() < 2) {
        if (Date.now() > deadline) throw new Error("no still was written");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      child.kill("SIGINT");
      const result = await output;
      const stdout = new TextDecoder().decode(result.stdout);
      const stderr = new TextDecoder().decode(result.stderr);
      assert.equal(result.code, 130, stderr);
      const report = JSON.parse(stdout);
      assert.equal(report.interrupted, true);
      assert.ok(report.results.length < names.length, "stopped early");
      assert.ok(report.results.every((r: { ok: boolean }) => r.ok), "no asset blamed");
      assert.doesNotMatch(stderr, /not drawn|not a valid/);
      assert.match(stderr, /interrupted by SIGINT: \d+ of 40 still\(s\) written/);
      const files = [...Deno.readDirSync(thumbs)].map((entry) => entry.name);
      assert.equal(files.length, report.results.length, files.join(" "));
      assert.ok(files.every((file) => file.endsWith(".png")), "no temporary file left");
    } finally {
      cancel();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("syn generate --preview serves the new asset; the summary on stdout stays JSON", async () => {
  const dir = await Deno.makeTempDir();
  const serving = await startSyn(
    [
      "generate",
      "a pulsing blue circle",
      "--out",
      join(dir, "out"),
      "--log-dir",
      join(dir, "logs"),
      "--preview",
    ],
    "stderr",
    /preview at (\S+)\n/,
  );
  const asset = await (await fetch(new URL("/asset.json", serving.match[1]))).json();
  assert.equal(asset.ok, true);
  assert.match(asset.name, /\.json$/);
  const { code, stderr } = await serving.stop();
  assert.equal(code, 0, stderr);
  const summary = JSON.parse(await serving.stdout);
  assert.equal(summary.ok, true);
  assert.equal(asset.name, summary.asset_path);
  await Deno.remove(dir, { recursive: true });
});
