import assert from "node:assert/strict";
import { SynError, UsageError, VERSION } from "../core/mod.ts";
import { ProviderError } from "../llm/mod.ts";
import { SynthesisError } from "../synthesize/mod.ts";
import { fakeIo } from "../../tests/fakes/cli_io.ts";
import type { Command } from "./io.ts";
import { flagMessage, numberFlag, parseCommandArgs } from "./args.ts";
import { runCli } from "./run_cli.ts";

const commands: Command[] = [
  {
    name: "echo",
    summary: "print the arguments",
    load: () =>
      Promise.resolve({
        help: "Usage: syn echo [--loud] WORDS…\n",
        run: async (args, io) => {
          const { values, positionals } = parseCommandArgs("echo", args, {
            loud: { type: "boolean" },
          });
          await io.stdout(
            (values.loud ? positionals.join(" ").toUpperCase() : positionals.join(" ")) + "\n",
          );
          return 0;
        },
      }),
  },
  {
    name: "explode",
    summary: "fail in three ways",
    load: () =>
      Promise.resolve({
        help: "Usage: syn explode KIND\n",
        run: (args) => {
          if (args[0] === "io") throw new SynError("io_error", "cannot read x.json: not found");
          if (args[0] === "provider") {
            throw new ProviderError("rate_limited", "HTTP 429 from the provider", { status: 429 });
          }
          if (args[0] === "synthesis") throw new SynthesisError("the answer has no steps", []);
          if (args[0] === "usage") throw new UsageError("explode: KIND is required");
          if (args[0] === "option") {
            throw new SynError("invalid_option", "the engine is one of a, b: c", {
              option: "engine",
              value: "c",
            });
          }
          if (args[0] === "options") {
            throw new SynError("invalid_option", "strict and relaxed exclude each other", {
              options: ["strict", "relaxed"],
            });
          }
          throw new Error("boom");
        },
      }),
  },
];

Deno.test("runCli() prints the version and the main help", async () => {
  const io = fakeIo();
  assert.equal(await runCli(["--version"], io, commands), 0);
  assert.equal(io.out(), `syn ${VERSION}\n`);
  const help = fakeIo();
  assert.equal(await runCli(["--help"], help, commands), 0);
  assert.match(help.out(), /echo\s+print the arguments/);
  assert.match(help.out(), /explode\s+fail in three ways/);
  const bare = fakeIo();
  assert.equal(await runCli([], bare, commands), 2);
  assert.match(bare.out(), /Usage:/);
});

Deno.test("runCli() runs a command and shows its own help", async () => {
  const io = fakeIo();
  assert.equal(await runCli(["echo", "--loud", "hi", "there"], io, commands), 0);
  assert.equal(io.out(), "HI THERE\n");
  const help = fakeIo();
  assert.equal(await runCli(["echo", "--help"], help, commands), 0);
  assert.equal(help.out(), "Usage: syn echo [--loud] WORDS…\n");
  const viaHelp = fakeIo();
  assert.equal(await runCli(["help", "echo"], viaHelp, commands), 0);
  assert.equal(viaHelp.out(), "Usage: syn echo [--loud] WORDS…\n");
  const operand = fakeIo();
  assert.equal(await runCli(["echo", "--", "--help", "-h"], operand, commands), 0);
  assert.equal(operand.out(), "--help -h\n");
});

Deno.test("runCli() answers unknown commands and bad flags with a one-line hint and exit 2", async () => {
  const unknown = fakeIo();
  assert.equal(await runCli(["ecko"], unknown, commands), 2);
  assert.equal(
    unknown.err(),
    "syn: unknown command 'ecko' (did you mean 'echo'?); see 'syn --help'\n",
  );
  const option = fakeIo();
  assert.equal(await runCli(["--frobnicate"], option, commands), 2);
  assert.match(option.err(), /^syn: unknown option '--frobnicate'; see 'syn --help'\n$/);
  const flag = fakeIo();
  assert.equal(await runCli(["echo", "--quiet"], flag, commands), 2);
  assert.equal(flag.err().split("\n").length, 2);
  assert.match(flag.err(), /^syn echo: unknown option '--quiet'; see 'syn echo --help'\n$/);
});

Deno.test("runCli() names the nearest flag for a misspelled one and says a missing value plainly", async () => {
  const misspelled = fakeIo();
  assert.equal(await runCli(["echo", "--lod", "x"], misspelled, commands), 2);
  assert.equal(
    misspelled.err(),
    "syn echo: unknown option '--lod' (did you mean '--loud'?); see 'syn echo --help'\n",
  );
  assert.equal(
    flagMessage("Option '-s, --seed <value>' argument missing", ["seed"]),
    "--seed needs a value",
  );
  assert.equal(
    flagMessage("Option '--loud' does not take an argument", []),
    "--loud takes no value",
  );
  assert.equal(
    flagMessage("Unknown option '--zzzzzz'. To specify a positional argument …", ["loud"]),
    "unknown option '--zzzzzz'",
  );
});

Deno.test("runCli() maps errors to exit codes without stacks", async () => {
  const io = fakeIo();
  assert.equal(await runCli(["explode", "io"], io, commands), 2);
  assert.equal(io.err(), "syn explode: cannot read x.json: not found\n");
  const usage = fakeIo();
  assert.equal(await runCli(["explode", "usage"], usage, commands), 2);
  assert.match(usage.err(), /KIND is required; see 'syn explode --help'/);
  const option = fakeIo();
  assert.equal(await runCli(["explode", "option"], option, commands), 2);
  assert.equal(
    option.err(),
    "syn explode: --engine: the engine is one of a, b: c; see 'syn explode --help'\n",
  );
  const options = fakeIo();
  assert.equal(await runCli(["explode", "options"], options, commands), 2);
  assert.match(options.err(), /^syn explode: --strict, --relaxed: strict and relaxed exclude/);
  const provider = fakeIo();
  assert.equal(await runCli(["explode", "provider"], provider, commands), 1);
  assert.match(provider.err(), /^syn explode: Provider request failed with rate_limited/);
  const synthesis = fakeIo();
  assert.equal(await runCli(["explode", "synthesis"], synthesis, commands), 1);
  const crash = fakeIo();
  assert.equal(await runCli(["explode", "other"], crash, commands), 1);
  assert.equal(crash.err(), "syn explode: boom\n");
  assert.ok(!crash.err().includes("at "));
});

Deno.test("numberFlag() parses and range-checks numbers", () => {
  assert.equal(numberFlag("seed", undefined), undefined);
  assert.equal(numberFlag("seed", "42", { integer: true }), 42);
  assert.equal(numberFlag("temperature", "0.5", { min: 0, max: 2 }), 0.5);
  assert.throws(() => numberFlag("seed", "4.2", { integer: true }), /--seed takes an integer: 4.2/);
  assert.throws(() => numberFlag("seed", "abc"), /--seed takes a number: abc/);
  assert.throws(() => numberFlag("temperature", "3", { min: 0, max: 2 }), /between 0 and 2/);
});
