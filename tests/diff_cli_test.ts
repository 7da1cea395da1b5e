import assert from "node:assert/strict";
import { COMMANDS, runCli } from "../lib/cli/mod.ts";
import { apply } from "../lib/patch/mod.ts";
import { fakeIo, runSyn } from "./fakes/cli_io.ts";
import { CONFORMANCE_EXAMPLES, sharedMissing, sharedPath } from "./fakes/shared.ts";

const BASE = { a: 1, b: [1], c: { d: 1 } };
const NEXT = { a: 2, b: [1, 2], e: "x/y", c: {} };
const EXPECTED_PATCH = [
  { op: "replace", path: "/a", value: 2 },
  { op: "replace", path: "/b", value: [1, 2] },
  { op: "remove", path: "/c/d" },
  { op: "add", path: "/e", value: "x/y" },
];

/** A temporary folder holding the given files, removed on dispose. */
async function tempFiles(files: Record<string, string>) {
  const dir = await Deno.makeTempDir({ prefix: "syn_diff_test_" });
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir}/${name}`, text);
  }
  return {
    dir,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function syn(args: string[], options: { stdin?: string; cwd?: string } = {}) {
  const io = fakeIo(options);
  const code = await runCli(["diff", ...args], io, COMMANDS);
  return { code, stdout: io.out(), stderr: io.err() };
}

Deno.test("syn diff prints the indented patch and exits 1 when documents differ", async () => {
  await using files = await tempFiles({
    "base.json": JSON.stringify(BASE),
    "new.json": JSON.stringify(NEXT, null, 2),
  });
  const result = await syn(["base.json", "new.json"], { cwd: files.dir });
  assert.equal(result.code, 1);
  assert.equal(result.stderr, "");
  assert.equal(result.stdout, JSON.stringify(EXPECTED_PATCH, null, 2) + "\n");
});

Deno.test("syn diff --compact prints one line; equal documents give [] and exit 0", async () => {
  await using files = await tempFiles({
    "base.json": JSON.stringify(BASE),
    "same.json": '{"c": {"d": 1}, "b": [1], "a": 1}',
    "new.json": JSON.stringify(NEXT),
  });
  const changed = await syn(["--compact", `${files.dir}/base.json`, `${files.dir}/new.json`]);
  assert.equal(changed.code, 1);
  assert.equal(changed.stdout, JSON.stringify(EXPECTED_PATCH) + "\n");
  const equal = await syn(["base.json", "same.json"], { cwd: files.dir });
  assert.equal(equal.code, 0);
  assert.equal(equal.stdout, "[]\n");
});

Deno.test("syn diff reads one side from standard input with -", async () => {
  await using files = await tempFiles({ "base.json": JSON.stringify(BASE) });
  const asNew = await syn(["base.json", "-"], { cwd: files.dir, stdin: JSON.stringify(NEXT) });
  assert.equal(asNew.code, 1);
  assert.deepEqual(JSON.parse(asNew.stdout), EXPECTED_PATCH);
  const asBase = await syn(["-", "base.json"], { cwd: files.dir, stdin: JSON.stringify(NEXT) });
  assert.equal(asBase.code, 1);
  assert.deepEqual(apply(NEXT, JSON.parse(asBase.stdout)), BASE);
  // RFC 8259 §8.1 lets a parser ignore a byte order mark; editors on Windows write one.
  const withMark = await syn(["base.json", "-"], {
    cwd: files.dir,
    stdin: "\uFEFF" + JSON.stringify(BASE),
  });
  assert.deepEqual([withMark.code, withMark.stdout], [0, "[]\n"]);
});

Deno.test("syn diff exits 2 naming the file, line and column of invalid JSON", async () => {
  await using files = await tempFiles({
    "base.json": JSON.stringify(BASE),
    "broken.json": '{\n  "a": 1,\n  "b": oops\n}\n',
  });
  const result = await syn(["base.json", "broken.json"], { cwd: files.dir });
  assert.equal(result.code, 2);
  assert.equal(result.stdout, "");
  assert.match(result.stderr, /^syn diff: broken\.json:3:8: invalid JSON: .+\n$/);
  const fromStdin = await syn(["base.json", "-"], { cwd: files.dir, stdin: "[1," });
  assert.equal(fromStdin.code, 2);
  assert.match(fromStdin.stderr, /^syn diff: <stdin>:1:4: invalid JSON/);
});

Deno.test("syn diff exits 2 on missing files, folders and bad usage", async () => {
  await using files = await tempFiles({ "base.json": "{}", "latin1.json": "" });
  await Deno.writeFile(`${files.dir}/latin1.json`, new Uint8Array([0x22, 0xe9, 0x22]));
  const cases: [string[], RegExp][] = [
    [["base.json", "missing.json"], /^syn diff: file not found: missing\.json\n$/],
    [["base.json", "."], /^syn diff: not a file: \.\n$/],
    [["base.json", "latin1.json"], /^syn diff: not valid UTF-8 text: latin1\.json\n$/],
    // Read in chunks and refused at the cap: an endless input cannot fill memory.
    [["base.json", "/dev/zero"], /^syn diff: input is larger than 64 MiB: \/dev\/zero\n$/],
    [
      ["base.json"],
      /^syn diff: expected two documents, <base> and <new>: got 1; see 'syn diff --help'\n$/,
    ],
    [["a", "b", "c"], /expected two documents, <base> and <new>: got 3/],
    [["-", "-"], /only one of <base> and <new> can be "-"/],
    [
      ["--pretty", "a", "b"],
      /^syn diff: unknown option '--pretty'; see 'syn diff --help'\n$/,
    ],
  ];
  for (const [args, pattern] of cases) {
    const result = await syn(args, { cwd: files.dir, stdin: "{}" });
    assert.equal(result.code, 2, args.join(" "));
    assert.equal(result.stdout, "", args.join(" "));
    assert.match(result.stderr, pattern);
  }
});

Deno.test("syn diff --help explains usage, exit codes and examples", async () => {
  const result = await syn(["--help"]);
  assert.equal(result.code, 0);
  assert.match(result.stdout, /Usage:\n {2}syn diff \[options\] <base> <new>/);
  assert.match(result.stdout, /--compact/);
  assert.match(result.stdout, /Exit codes:/);
  assert.match(result.stdout, /Examples:/);
});

Deno.test("syn diff runs as a real process: files and standard input", async () => {
  await using files = await tempFiles({
    "base.json": JSON.stringify({ title: "one", tags: ["a"] }),
    "new.json": JSON.stringify({ title: "two", "a/b~": null }),
  });
  const result = await runSyn(["diff", "--compact", "base.json", "-"], {
    cwd: files.dir,
    stdin: await Deno.readTextFile(`${files.dir}/new.json`),
  });
  assert.equal(result.stderr, "");
  assert.equal(result.code, 1);
  assert.equal(
    result.stdout,
    '[{"op":"add","path":"/a~1b~0","value":null},{"op":"remove","path":"/tags"},' +
      '{"op":"replace","path":"/title","value":"two"}]\n',
  );
  const missing = await runSyn(["diff", "base.json", "nope.json"], { cwd: files.dir });
  assert.equal(missing.code, 2);
  assert.equal(missing.stdout, "");
  assert.equal(missing.stderr, "syn diff: file not found: nope.json\n");
});

Deno.test({
  name: "syn diff of two conformance examples gives a patch that rebuilds the second",
  ignore: sharedMissing(CONFORMANCE_EXAMPLES),
  async fn() {
    const folder = sharedPath(CONFORMANCE_EXAMPLES);
    const first = `${folder}/SynestheticAsset_Example1.json`;
    const second = `${folder}/SynestheticAsset_Example4.json`;
    const result = await syn([first, second]);
    assert.equal(result.code, 1);
    const patch = JSON.parse(result.stdout);
    const base = JSON.parse(await Deno.readTextFile(first));
    const next = JSON.parse(await Deno.readTextFile(second));
    assert.deepEqual(apply(base, patch), next);
    assert.equal((await syn([first, first])).stdout, "[]\n");
  },
});
