import { childEnv } from "./fakes/child_env.ts";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { COMMANDS, runCli } from "../lib/cli/mod.ts";
import type { FileResult } from "../lib/cli/validate.ts";
import { fakeIo, runSyn } from "./fakes/cli_io.ts";
import {
  CONFORMANCE_EXAMPLES,
  CONFORMANCE_SCHEMAS,
  sharedMissing,
  sharedPath,
} from "./fakes/shared.ts";

const root = fileURLToPath(new URL("../", import.meta.url));
const baselinePath = "schemas/examples/canonical-baseline.json";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "syn-validate-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function syn(args: string[], options: Parameters<typeof fakeIo>[0] = {}) {
  const io = fakeIo({ cwd: root, ...options });
  const code = await runCli(args, io, COMMANDS);
  return { code, out: io.out(), err: io.err() };
}

Deno.test("syn validate: a valid file prints ok and exits 0", async () => {
  const { code, out } = await syn(["validate", baselinePath]);
  assert.equal(code, 0);
  assert.deepEqual(JSON.parse(out), {
    file: baselinePath,
    schema: "synesthetic-asset",
    ok: true,
    errors: [],
  });
});

Deno.test("syn validate: an invalid file prints pointers and exits 1", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/bad.json`, '{"name":"x","shader":{"name":"s"}}');
    const { code, out } = await syn(["validate", `${dir}/bad.json`]);
    assert.equal(code, 1);
    assert.deepEqual(JSON.parse(out).errors, [
      { path: "/shader", msg: "must have required property 'fragment_shader'" },
      { path: "/shader", msg: "must have required property 'vertex_shader'" },
    ]);
  });
});

Deno.test("syn validate: a parse error names file:line:column and exits 2", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/broken.json`, '{\n  "name": "x",\n  oops\n}');
    const { code, out, err } = await syn(["validate", `${dir}/broken.json`]);
    assert.equal(code, 2);
    assert.match(err, new RegExp(`${dir}/broken\\.json:3:3: invalid JSON`));
    assert.equal(JSON.parse(out).ok, false);
  });
});

Deno.test("syn validate: a missing file is an IO error, exit 2", async () => {
  const { code, err } = await syn(["validate", "no/such/file.json"]);
  assert.equal(code, 2);
  assert.match(err, /^syn validate: file not found: no\/such\/file\.json\n$/);
});

Deno.test("syn validate: input is capped while reading, UTF-8 with or without a BOM", async () => {
  const endless = await syn(["validate", "/dev/zero"]);
  assert.equal(endless.code, 2);
  assert.match(endless.err, /^syn validate: input is larger than 16 MiB: \/dev\/zero\n$/);
  const big = await syn(["validate", "-"], { stdin: " ".repeat(16 * 1024 * 1024 + 1) });
  assert.equal(big.code, 2);
  assert.match(big.err, /input is larger than 16 MiB: -/);
  await withDir(async (dir) => {
    // A regular file (read synchronously) at the cap is read, one byte past it is refused.
    await Deno.writeTextFile(`${dir}/at-cap.json`, `"${" ".repeat(16 * 1024 * 1024 - 2)}"`);
    await Deno.writeTextFile(`${dir}/past-cap.json`, " ".repeat(16 * 1024 * 1024 + 1));
    const atCap = await syn(["validate", "--schema", "shader", `${dir}/at-cap.json`]);
    assert.equal(atCap.code, 1, atCap.err);
    assert.equal(JSON.parse(atCap.out).ok, false, "read and validated: a string is not a shader");
    const pastCap = await syn(["validate", `${dir}/past-cap.json`]);
    assert.equal(pastCap.code, 2);
    assert.match(pastCap.err, /^syn validate: input is larger than 16 MiB: .*past-cap\.json\n$/);
  });
  await withDir(async (dir) => {
    const bom = new TextEncoder().encode('\uFEFF{"name":"with a byte order mark"}');
    await Deno.writeFile(`${dir}/bom.json`, bom);
    await Deno.writeFile(`${dir}/latin1.json`, new Uint8Array([0x7b, 0x22, 0xe9, 0x22, 0x7d]));
    const { code, out, err } = await syn(["validate", `${dir}/bom.json`, `${dir}/latin1.json`]);
    assert.equal(code, 2);
    assert.deepEqual(JSON.parse(out).results.map((result: FileResult) => result.ok), [true, false]);
    assert.match(err, /not valid UTF-8 text: .*latin1\.json/);
  });
});

Deno.test("syn validate: a folder follows symlinks and reports broken ones", async () => {
  await withDir(async (dir) => {
    await Deno.mkdir(`${dir}/assets`);
    await Deno.mkdir(`${dir}/assets/nested.json`);
    await Deno.writeTextFile(`${dir}/real.json`, '{"name":"linked"}');
    await Deno.writeTextFile(`${dir}/assets/a.json`, '{"name":"a"}');
    await Deno.symlink(`${dir}/real.json`, `${dir}/assets/b-link.json`);
    await Deno.symlink(`${dir}/gone.json`, `${dir}/assets/c-dangling.json`);
    await Deno.symlink(`${dir}/assets/nested.json`, `${dir}/assets/d-folder-link.json`);
    const { code, out } = await syn(["validate", "assets"], { cwd: dir });
    assert.equal(code, 2);
    const answer = JSON.parse(out);
    assert.deepEqual(answer.results.map((result: FileResult) => [result.file, result.ok]), [
      ["assets/a.json", true],
      ["assets/b-link.json", true],
      ["assets/c-dangling.json", false],
    ]);
    assert.equal(answer.results[2].error, "file not found: assets/c-dangling.json");
  });
});

Deno.test("syn validate: an unreadable file or folder is reported, the others still checked", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/ok.json`, '{"name":"ok"}');
    await Deno.mkdir(`${dir}/locked`);
    await Deno.writeTextFile(`${dir}/locked/x.json`, '{"name":"x"}');
    await Deno.writeTextFile(`${dir}/secret.json`, '{"name":"s"}');
    // Deno's permissions refuse the reads even to root, where chmod 000 would not.
    const child = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        `--allow-read=${root},${dir}/ok.json`,
        "--allow-env",
        `${root}main.ts`,
        "validate",
        "ok.json",
        "secret.json",
        "locked",
      ],
      cwd: dir,
      clearEnv: true,
      env: childEnv(),
      stdout: "piped",
      stderr: "piped",
    }).output();
    const out = JSON.parse(new TextDecoder().decode(child.stdout));
    assert.equal(child.code, 2);
    assert.deepEqual([out.valid, out.invalid, out.unreadable], [1, 0, 2]);
    assert.deepEqual(out.results.map((result: FileResult) => result.error), [
      undefined,
      "permission denied: secret.json",
      "permission denied: locked",
    ]);
  });
});

Deno.test({
  name: "syn validate: a SYN_SCHEMAS_DIR without the default schema is a clear usage error",
  async fn() {
    await withDir(async (dir) => {
      const { code, err } = await syn(["validate", baselinePath], {
        env: { SYN_SCHEMAS_DIR: dir },
      });
      assert.equal(code, 2);
      assert.match(
        err,
        new RegExp(`unknown schema: synesthetic-asset \\(known: none in SYN_SCHEMAS_DIR=${dir}\\)`),
      );
    });
  },
});

Deno.test("syn validate: a folder and several files give results and a summary", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/b-invalid.json`, '{"name":""}');
    await Deno.writeTextFile(`${dir}/a-valid.json`, '{"name":"ok"}');
    await Deno.writeTextFile(`${dir}/c-broken.json`, "{");
    await Deno.writeTextFile(`${dir}/notes.txt`, "ignored");
    const { code, out, err } = await syn(["validate", dir, baselinePath]);
    assert.equal(code, 2);
    const answer = JSON.parse(out);
    assert.deepEqual(answer.results.map((result: { file: string }) => result.file), [
      `${dir}/a-valid.json`,
      `${dir}/b-invalid.json`,
      `${dir}/c-broken.json`,
      baselinePath,
    ]);
    assert.deepEqual([answer.ok, answer.valid, answer.invalid, answer.unreadable], [
      false,
      2,
      1,
      1,
    ]);
    assert.match(err, /2 valid, 1 invalid, 1 unreadable\n$/);

    await Deno.remove(`${dir}/c-broken.json`);
    const second = await syn(["validate", `${dir}/`]);
    assert.equal(second.code, 1);
    assert.match(second.err, /^1 valid, 1 invalid, 0 unreadable\n$/);
  });
});

Deno.test("syn validate: '-' reads standard input", async () => {
  const { code, out } = await syn(["validate", "-"], { stdin: '{"name": 5}' });
  assert.equal(code, 1);
  assert.deepEqual(JSON.parse(out), {
    file: "-",
    schema: "synesthetic-asset",
    ok: false,
    errors: [{ path: "/name", msg: "must be string" }],
  });
});

Deno.test("syn validate: the marker chooses the schema, --schema overrides it", async () => {
  await withDir(async (dir) => {
    const tone = { $schema: "../tone.schema.json", name: "t", synth: {} };
    await Deno.writeTextFile(`${dir}/tone.json`, JSON.stringify(tone));
    const byMarker = await syn(["validate", `${dir}/tone.json`]);
    assert.equal(byMarker.code, 0);
    assert.equal(JSON.parse(byMarker.out).schema, "tone");

    const forced = await syn(["validate", `${dir}/tone.json`, "--schema", "shader"]);
    assert.equal(forced.code, 1);
    assert.equal(JSON.parse(forced.out).schema, "shader");
    assert.deepEqual(JSON.parse(forced.out).errors, [
      { path: "", msg: "must NOT have additional property 'synth'" },
      { path: "", msg: "must have required property 'fragment_shader'" },
      { path: "", msg: "must have required property 'vertex_shader'" },
    ]);

    const alias = await syn(["validate", baselinePath, "--schema", "nested-synesthetic-asset"]);
    assert.equal(alias.code, 0);
  });
});

Deno.test("syn validate: an unknown schema or no argument is a usage error, exit 2", async () => {
  const unknown = await syn(["validate", baselinePath, "--schema", "nope"]);
  assert.equal(unknown.code, 2);
  assert.match(
    unknown.err,
    /unknown schema: nope \(known: control, .*tone\); see 'syn validate --help'/,
  );
  const none = await syn(["validate"]);
  assert.equal(none.code, 2);
  assert.match(none.err, /give at least one file/);
  const badFlag = await syn(["validate", "--bogus", baselinePath]);
  assert.equal(badFlag.code, 2);
  const help = await syn(["validate", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.out, /syn examples get canonical-baseline\.json --raw > baseline\.json/);
});

Deno.test({
  name: "syn validate: SYN_SCHEMAS_DIR switches the schema set",
  ignore: sharedMissing(CONFORMANCE_SCHEMAS) || sharedMissing(CONFORMANCE_EXAMPLES),
  async fn() {
    const { code, out } = await syn(["validate", sharedPath(CONFORMANCE_EXAMPLES)], {
      env: { SYN_SCHEMAS_DIR: sharedPath(CONFORMANCE_SCHEMAS) },
    });
    assert.equal(code, 0);
    assert.equal(JSON.parse(out).valid, 15);
    const listed = await syn(["schemas"], {
      env: { SYN_SCHEMAS_DIR: sharedPath(CONFORMANCE_SCHEMAS) },
    });
    assert.equal(
      JSON.parse(listed.out).schemas[0].path,
      `${sharedPath(CONFORMANCE_SCHEMAS)}/control.schema.json`,
    );
  },
});

Deno.test("syn schemas: list and get, unknown name exits 1", async () => {
  const listed = await syn(["schemas"]);
  assert.equal(listed.code, 0);
  const answer = JSON.parse(listed.out);
  assert.equal(answer.ok, true);
  assert.equal(answer.schemas.length, 9);
  assert.deepEqual(JSON.parse((await syn(["schemas", "list"])).out), answer);

  const got = await syn(["schemas", "get", "nested-synesthetic-asset"]);
  assert.equal(got.code, 0);
  assert.equal(JSON.parse(got.out).schema.title, "Synesthetic asset");
  assert.equal(JSON.parse(got.out).version, "0.7.3");

  const missing = await syn(["schemas", "get", "nope"]);
  assert.equal(missing.code, 1);
  assert.match(missing.err, /unknown schema: nope/);
  assert.equal((await syn(["schemas", "frobnicate"])).code, 2);
});

Deno.test("syn examples: list, filter, get; unknown path exits 1", async () => {
  const all = JSON.parse((await syn(["examples"])).out).examples;
  assert.ok(all.some((entry: { component: string }) => entry.component === "canonical-baseline"));
  const shaders = JSON.parse((await syn(["examples", "list", "shader"])).out).examples;
  assert.deepEqual(shaders, [{
    component: "shader-ring",
    path: "schemas/examples/shader-ring.json",
  }]);
  assert.deepEqual(JSON.parse((await syn(["examples", "shader"])).out).examples, shaders);

  const got = await syn(["examples", "get", "canonical-baseline.json"]);
  assert.equal(got.code, 0);
  const answer = JSON.parse(got.out);
  assert.deepEqual([answer.ok, answer.schema, answer.validated], [true, "synesthetic-asset", true]);
  assert.equal(answer.example.name, "Canonical Baseline");

  const missing = await syn(["examples", "get", "nope.json"]);
  assert.equal(missing.code, 1);
  assert.match(missing.err, /no such example: nope\.json/);
});

Deno.test("syn validate as a process: exit codes, stdout and stdin", async () => {
  const valid = await runSyn(["validate", baselinePath], { cwd: root });
  assert.equal(valid.code, 0, valid.stderr);
  assert.equal(JSON.parse(valid.stdout).ok, true);
  const piped = await runSyn(["validate", "-", "--schema", "tone"], {
    cwd: root,
    stdin: '{"name":"t"}',
  });
  assert.equal(piped.code, 1);
  assert.deepEqual(JSON.parse(piped.stdout).errors, [
    { path: "", msg: "must have required property 'synth'" },
  ]);
  const broken = await runSyn(["validate", "-"], { cwd: root, stdin: "[1,\n2,,]" });
  assert.equal(broken.code, 2);
  assert.match(broken.stderr, /-:2:3: invalid JSON/);
});
