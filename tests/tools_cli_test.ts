import assert from "node:assert/strict";
import { join } from "node:path";
import { COMMANDS, runCli } from "../lib/cli/mod.ts";
import { fakeIo, runSyn } from "./fakes/cli_io.ts";
import { sandboxFixture, SENTINEL } from "./fakes/sandbox_fixture.ts";
import { detectBubblewrap } from "../lib/tools/mod.ts";

async function syn(args: string[], cwd: string, stdin?: string) {
  const io = fakeIo({ cwd, stdin });
  const code = await runCli(["tools", ...args], io, COMMANDS);
  return { code, out: io.out(), err: io.err() };
}

Deno.test("syn tools list names the five baseline tools with their defaults", async () => {
  const { code, out } = await syn(["list"], Deno.cwd());
  assert.equal(code, 0);
  for (
    const line of [
      "fs.read_text {path, max_bytes=20000}",
      'fs.list_dir {path=".", max_entries=200}',
      "fs.write_text {path, text, overwrite=false}",
      "shell.exec {cmd, timeout_s=20}",
      "http.get {url, use_cache=true}",
    ]
  ) assert.ok(out.includes(line), `missing: ${line}\n${out}`);
});

Deno.test("syn tools list --json gives each tool's argument schema", async () => {
  const { code, out } = await syn(["list", "--json"], Deno.cwd());
  assert.equal(code, 0);
  const tools = JSON.parse(out) as { name: string; args_schema: { type: string } }[];
  assert.deepEqual(tools.map((tool) => tool.name).sort(), [
    "fs.list_dir",
    "fs.read_text",
    "fs.write_text",
    "http.get",
    "shell.exec",
  ]);
  assert.ok(tools.every((tool) => tool.args_schema.type === "object"));
});

Deno.test("syn tools run prints the result: exit 0 when ok, 1 when refused", async () => {
  await using fixture = await sandboxFixture();
  const ok = await syn([
    "run",
    "fs.read_text",
    "--root",
    fixture.root,
    "--args",
    '{"path":"hello.txt"}',
  ], fixture.base);
  assert.equal(ok.code, 0, ok.err);
  assert.deepEqual(JSON.parse(ok.out), {
    id: "t1",
    tool: "fs.read_text",
    ok: true,
    output: { path: "hello.txt", text: "hello\n", bytes: 6, truncated: false },
    error: null,
  });
  const refused = await syn([
    "run",
    "fs.read_text",
    "--root",
    "root",
    "--args",
    '{"path":"../secret.txt"}',
  ], fixture.base);
  assert.equal(refused.code, 1);
  assert.equal(JSON.parse(refused.out).error.code, "path_escape");
  assert.ok(!refused.out.includes(SENTINEL));
});

Deno.test("syn tools run reads args from a file or standard input", async () => {
  await using fixture = await sandboxFixture();
  await Deno.writeTextFile(join(fixture.base, "args.json"), '{"path": "docs"}');
  const file = await syn(
    ["run", "fs.list_dir", "--root", "root", "--args-file", "args.json"],
    fixture.base,
  );
  assert.equal(file.code, 0, file.err);
  assert.equal(JSON.parse(file.out).output.entries[0].name, "notes.md");
  const stdin = await syn(
    ["run", "fs.list_dir", "--root", "root", "--args-file", "-"],
    fixture.base,
    '{"path": "docs"}',
  );
  assert.equal(stdin.code, 0, stdin.err);
});

Deno.test("syn tools run: bad usage exits 2 with a one-line hint", async () => {
  await using fixture = await sandboxFixture();
  const cases: [string[], RegExp][] = [
    [["run", "fs.read_text"], /--root <dir> is required/],
    [["run", "--root", "root"], /name the tool/],
    [["run", "fs.read_text", "--root", "missing"], /does not exist/],
    [["run", "fs.read_text", "--root", "root", "--args", "{bad"], /--args/],
    [["run", "fs.read_text", "--root", "root", "--args", "[1]"], /JSON object/],
    [["run", "fs.read_text", "--root", "root", "--grant", "net x"], /not a capability/],
    [["run", "fs.read_text", "--root", "root", "--timeout-s", "soon"], /--timeout-s/],
    [["frobnicate"], /unknown tools subcommand/],
    [[], /list/],
  ];
  for (const [args, hint] of cases) {
    const result = await syn(args, fixture.base);
    assert.equal(result.code, 2, `${args.join(" ")}: ${result.err}`);
    assert.match(result.err, hint, args.join(" "));
  }
});

Deno.test("syn tools --help teaches the sandbox rules", async () => {
  const { code, out } = await syn(["--help"], Deno.cwd());
  assert.equal(code, 0);
  for (
    const word of ["path_escape", "--grant net:<host>", "bubblewrap", "Interpreters", "loopback"]
  ) {
    assert.ok(out.includes(word), word);
  }
});

Deno.test("syn tools run works as a subprocess and writes its trace", async () => {
  await using fixture = await sandboxFixture();
  const result = await runSyn([
    "tools",
    "run",
    "fs.write_text",
    "--root",
    "root",
    "--args",
    '{"path":"out/new.txt","text":"made"}',
    "--trace",
    "trace.jsonl",
  ], {
    cwd: fixture.base,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(await Deno.readTextFile(join(fixture.root, "out", "new.txt")), "made");
  const events = (await Deno.readTextFile(join(fixture.base, "trace.jsonl"))).trim().split("\n")
    .map((line) => JSON.parse(line));
  assert.deepEqual(events.map((event) => event.kind), ["tool_start", "tool_done"]);
  assert.equal(events[1].data.outcome, "SUCCESS");
});

Deno.test("syn tools run --trace into a folder that does not exist is refused before the call", async () => {
  await using fixture = await sandboxFixture();
  const result = await runSyn([
    "tools",
    "run",
    "fs.write_text",
    "--root",
    "root",
    "--args",
    '{"path":"never.txt","text":"x"}',
    "--trace",
    "missing/trace.jsonl",
  ], { cwd: fixture.base });
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /--trace: no such folder: .*missing/);
  await assert.rejects(Deno.stat(join(fixture.root, "never.txt")), Deno.errors.NotFound);
});

Deno.test("syn tools run shell.exec without bubblewrap is refused unless --shell-without-bubblewrap", async () => {
  await using fixture = await sandboxFixture();
  const empty = await Deno.makeTempDir({ prefix: "syn-no-bwrap-" });
  try {
    const args = ["tools", "run", "shell.exec", "--root", fixture.root, "--args"];
    const run = (extra: string[], path = empty) =>
      runSyn([...args, '{"cmd": "echo hi"}', ...extra], { env: { PATH: path } });
    // bwrap is not in PATH here, and --no-bubblewrap turns it off where it is.
    for (const refused of [await run([]), await run(["--no-bubblewrap"], SYSTEM_PATH)]) {
      assert.equal(refused.code, 1, refused.stderr);
      const { error } = JSON.parse(refused.stdout);
      assert.equal(error.code, "sandbox_unavailable", refused.stdout);
      assert.match(error.message, /symlink/);
      assert.match(error.message, /apt-get install bubblewrap/);
      assert.match(error.message, /--shell-without-bubblewrap/);
    }
    for (
      const opted of [
        await run(["--shell-without-bubblewrap"]),
        await run(["--no-bubblewrap", "--shell-without-bubblewrap"], SYSTEM_PATH),
      ]
    ) {
      assert.equal(opted.code, 0, opted.stderr);
      assert.deepEqual(JSON.parse(opted.stdout).output.stdout, "hi\n");
      assert.equal(JSON.parse(opted.stdout).output.isolation, "argv");
    }
    const fsCall = await runSyn(["tools", "run", "fs.list_dir", "--root", fixture.root], {
      env: { PATH: empty },
    });
    assert.equal(fsCall.code, 0, fsCall.stderr);
    const help = await runSyn(["tools", "--help"]);
    assert.match(help.stdout, /--shell-without-bubblewrap\s+let shell.exec run without bubblewrap/);
    assert.match(help.stdout, /symlink swapped in between/);
  } finally {
    await Deno.remove(empty, { recursive: true });
  }
});

const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";

Deno.test({
  name: "syn tools run shell.exec finds bwrap in PATH and then gives no notice",
  ignore: !(await detectBubblewrap()),
  async fn() {
    await using fixture = await sandboxFixture();
    const result = await runSyn([
      "tools",
      "run",
      "shell.exec",
      "--root",
      fixture.root,
      "--args",
      '{"cmd": "echo hi"}',
    ], { env: { PATH: "/usr/local/bin:/usr/bin:/bin" } });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout).output.isolation, "bubblewrap");
    assert.ok(!result.stderr.includes("bubblewrap"), result.stderr);
  },
});
