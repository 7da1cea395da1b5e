/**
 * Smoke test of the single binary: `--version`, `validate`, `mcp-serve --stdio` answering
 * one request, `generate` on the deterministic engine, `tools run`, and `preview --png`
 * where Chromium is installed — each from an empty folder, so schemas, the sandbox worker
 * and the preview page must come from inside the program.
 *
 * The built binary (`SYN_BINARY`, else `dist/syn`) is tested when there is one; `deno
 * compile` cannot download its runtime on machines without internet access, and the test
 * then says so. The same suite always runs `main.ts` with exactly the permissions the
 * binary is compiled with, so that list is proven sufficient either way.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BINARY_PERMISSIONS, EMBEDDED } from "../scripts/compile_options.ts";
import { findChromium } from "../lib/preview/mod.ts";
import { runCommand } from "./fakes/cli_io.ts";
import { denoInfo, reachableModules } from "./fakes/module_graph.ts";

const root = new URL("../", import.meta.url);
const version = JSON.parse(await Deno.readTextFile(new URL("deno.json", root))).version;
const baseline = await Deno.readTextFile(new URL("schemas/examples/canonical-baseline.json", root));

function builtBinary(): string | undefined {
  const path = Deno.env.get("SYN_BINARY") ?? fileURLToPath(new URL("dist/syn", root));
  try {
    return Deno.statSync(path).isFile ? path : undefined;
  } catch {
    return undefined;
  }
}

const BINARY = builtBinary();
if (!BINARY) {
  console.warn(
    "skipping the built-binary smoke test: no dist/syn (deno task compile cannot download " +
      "the denort runtime here; set SYN_BINARY to test a binary built elsewhere)",
  );
}

function run(command: readonly string[], args: string[], cwd: string, stdin?: string) {
  return runCommand(command, args, { cwd, stdin });
}

async function smoke(command: readonly string[]) {
  const dir = await Deno.makeTempDir({ prefix: "syn-smoke-" });
  try {
    const shown = await run(command, ["--version"], dir);
    assert.equal(shown.code, 0, shown.stderr);
    assert.ok(shown.stdout.includes(version), shown.stdout);

    await Deno.writeTextFile(join(dir, "asset.json"), baseline);
    const valid = await run(command, ["validate", "asset.json"], dir);
    assert.equal(valid.code, 0, valid.stderr);
    assert.equal(JSON.parse(valid.stdout).ok, true);

    const request = '{"jsonrpc":"2.0","id":1,"method":"list_schemas","params":{}}\n';
    const served = await run(command, ["mcp-serve", "--stdio"], dir, request);
    const answer = JSON.parse(served.stdout.split("\n")[0]);
    assert.equal(answer.id, 1, served.stderr);
    assert.ok(answer.result.schemas.some((s: { name: string }) => s.name === "synesthetic-asset"));

    const made = await run(command, ["generate", "a pulsing blue circle", "--out", "assets"], dir);
    assert.equal(made.code, 0, made.stderr);
    const summary = JSON.parse(made.stdout);
    assert.equal(summary.ok, true);
    assert.equal(summary.validator.transport, "stdio", "validated by its own mcp-serve child");

    await Deno.mkdir(join(dir, "root"));
    const args = JSON.stringify({ path: "note.txt", text: "hello" });
    const wrote = await run(command, [
      "tools",
      "run",
      "fs.write_text",
      "--root",
      "root",
      "--args",
      args,
    ], dir);
    assert.equal(wrote.code, 0, wrote.stderr);
    assert.equal(await Deno.readTextFile(join(dir, "root", "note.txt")), "hello");
    const escaped = await run(command, [
      "tools",
      "run",
      "fs.read_text",
      "--root",
      "root",
      "--args",
      '{"path":"../asset.json"}',
    ], dir);
    assert.equal(escaped.code, 1);
    assert.equal(JSON.parse(escaped.stdout).error.code, "path_escape");

    const chromium = findChromium(Deno.env.get("SYN_CHROMIUM"));
    if (chromium) {
      const still = await run(command, [
        "preview",
        "asset.json",
        "--png",
        "a.png",
        "--size",
        "64x48",
      ], dir);
      assert.equal(still.code, 0, still.stderr);
      assert.equal((await Deno.stat(join(dir, "a.png"))).size > 100, true);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("main.ts with only the binary's permissions passes the binary smoke test", async () => {
  await smoke([
    Deno.execPath(),
    "run",
    ...BINARY_PERMISSIONS,
    "--unstable-worker-options",
    fileURLToPath(new URL("main.ts", root)),
  ]);
});

Deno.test({
  name: "the built binary: version, validate, mcp-serve, generate, tools and preview",
  ignore: !BINARY,
  fn: () => smoke([BINARY!]),
});

/** `new URL("./x.ts", import.meta.url)`: a module loaded by URL at run time (import or worker). */
const LOADED_BY_URL = /new URL\(\s*"(\.\.?\/[^"]+\.(?:ts|js))"\s*,\s*import\.meta\.url\s*\)/g;

/** The modules `lib/` loads by URL (computed `import()` specifiers, workers), from the root. */
function modulesLoadedByUrl(): string[] {
  const found = new Set<string>();
  const walk = (folder: URL) => {
    for (const entry of Deno.readDirSync(folder)) {
      const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), folder);
      if (entry.isDirectory) {
        if (entry.name !== "testdata") walk(url);
      } else if (/\.ts$/.test(entry.name) && !/_test\.ts$/.test(entry.name)) {
        for (const match of Deno.readTextFileSync(url).matchAll(LOADED_BY_URL)) {
          found.add(new URL(match[1], url).pathname.slice(root.pathname.length));
        }
      }
    }
  };
  walk(new URL("lib/", root));
  return [...found].sort();
}

/** Every module `deno compile` takes in: `main.ts` and the embedded modules, with their graphs. */
async function compiledModules(): Promise<Set<string>> {
  const roots = ["main.ts", ...EMBEDDED.filter((path) => /\.(ts|js)$/.test(path))];
  const dir = await Deno.makeTempDir({ prefix: "syn-embedded-" });
  try {
    const entry = join(dir, "all.ts");
    await Deno.writeTextFile(
      entry,
      roots.map((path) => `import ${JSON.stringify(new URL(path, root).href)};\n`).join(""),
    );
    const graph = await denoInfo(["--config", fileURLToPath(new URL("deno.json", root)), entry]);
    const seen = reachableModules(graph, graph.roots ?? []);
    return new Set(
      [...seen].filter((specifier) => specifier.startsWith(root.href))
        .map((specifier) => specifier.slice(root.href.length)),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("every module lib/ loads by URL is compiled into the binary", async () => {
  // `deno compile` follows static and literal imports only: a module imported by a computed
  // specifier, or started as a worker, must be named in EMBEDDED or imported by one that is.
  const compiled = await compiledModules();
  const embedded = (path: string) =>
    compiled.has(path) || EMBEDDED.some((entry) => path === entry || path.startsWith(`${entry}/`));
  const loaded = modulesLoadedByUrl();
  assert.deepEqual(loaded.filter((path) => !embedded(path)), []);
  // …and the scan finds such modules (the sandbox worker, mcp-serve's tools).
  assert.ok(loaded.includes("lib/tools/_sandbox_worker.ts"), loaded.join(", "));
  assert.ok(loaded.includes("lib/cli/_mcp_serve_tools.ts"), loaded.join(", "));
});
