/**
 * `shell.exec` reads options the way each program's GNU getopt_long does: any unambiguous
 * prefix of a long option (`--f` is `--files0-from` for `wc`), with `=value` or the next
 * word as its value, short options inside clusters. Run through the whole tool layer, with
 * bubblewrap (where it works here) and without.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ToolSession } from "./mod.ts";
import {
  sandboxFixture,
  SENTINEL,
  type ShellVariant,
  shellVariants,
} from "../../tests/fakes/sandbox_fixture.ts";

const VARIANTS = await shellVariants();

/** Every option of the default programs that reads other files, recurses, writes, hangs or sets state. */
const REFUSED_LONG: Record<string, string[]> = {
  ls: ["dereference"],
  tail: ["follow", "retry", "pid"],
  wc: ["files0-from"],
  grep: ["recursive", "dereference-recursive", "file", "directories", "devices", "exclude-from"],
  sort: ["output", "temporary-directory", "compress-program", "files0-from", "random-source"],
  date: ["file", "set", "reference"],
};
const REFUSED_SHORT: Record<string, string> = {
  ls: "L",
  tail: "fF",
  grep: "rRfdD",
  sort: "oT",
  date: "fsr",
};
/** Programs that have no refused option still refuse these, read by nobody's getopt. */
const NO_SUCH_OPTION = ["cat", "head", "uniq", "cut", "tr", "pwd"];

type Call = (
  cmd: string,
) => Promise<{ ok: boolean; error: { code: string } | null; output: unknown }>;

async function withSession(
  variant: ShellVariant,
  body: (call: Call, fixture: { base: string; root: string }) => Promise<void>,
): Promise<void> {
  await using fixture = await sandboxFixture();
  const before = await fixture.outsideSnapshot();
  using session = await ToolSession.open({
    root: fixture.root,
    bubblewrap: variant.bubblewrap,
    shellWithoutBubblewrap: variant.shellWithoutBubblewrap,
  });
  const call: Call = async (cmd) => {
    const result = await session.call({ id: "s", tool: "shell.exec", args: { cmd, timeout_s: 5 } });
    assert.ok(!JSON.stringify(result).includes(SENTINEL), `${cmd}: the sentinel leaked`);
    return result as Awaited<ReturnType<Call>>;
  };
  await body(call, fixture);
  assert.equal(await fixture.outsideSnapshot(), before, "something outside the root changed");
}

/** Allowed options whose exact name is also a prefix of a refused one: getopt takes them as named. */
const EXACT_OTHERS = new Set(["grep --exclude"]);

/** `--f`, `--fo`, … `--follow`: every prefix that getopt could expand to `name`. */
function prefixes(program: string, name: string): string[] {
  return Array.from({ length: name.length }, (_, index) => name.slice(0, index + 1))
    .filter((prefix) => !EXACT_OTHERS.has(`${program} --${prefix}`));
}

for (const variant of VARIANTS) {
  Deno.test({
    name: `shell options (${variant.name}): the reported one-letter abbreviations are refused`,
    ignore: variant.ignore,
    async fn() {
      await withSession(variant, async (call, fixture) => {
        // A NUL-separated file list the model wrote itself, naming files outside the root.
        const list = [join(fixture.base, "secret.txt"), "/etc/shadow", "/root/.bashrc"];
        await Deno.writeTextFile(join(fixture.root, "list"), list.join("\0") + "\0");
        for (const cmd of ["wc --f=list", "wc --f list", "tail --f hello.txt", "date --s=@0"]) {
          const result = await call(cmd);
          assert.equal(result.error?.code, "not_allowed", `${cmd}: ${JSON.stringify(result)}`);
        }
      });
    },
  });

  Deno.test({
    name: `shell options (${variant.name}): every abbreviation of every refused option is refused`,
    ignore: variant.ignore,
    async fn() {
      await withSession(variant, async (call) => {
        for (const [program, names] of Object.entries(REFUSED_LONG)) {
          for (const name of names) {
            for (const prefix of prefixes(program, name)) {
              for (const form of [`--${prefix}=x`, `--${prefix} x`, `--${prefix}`]) {
                const cmd = `${program} ${form} hello.txt`;
                const result = await call(cmd);
                assert.equal(
                  result.error?.code,
                  "not_allowed",
                  `${cmd}: ${JSON.stringify(result)}`,
                );
              }
            }
          }
        }
      });
    },
  });

  Deno.test({
    name: `shell options (${variant.name}): refused short options, alone and inside clusters`,
    ignore: variant.ignore,
    async fn() {
      await withSession(variant, async (call) => {
        for (const [program, letters] of Object.entries(REFUSED_SHORT)) {
          for (const letter of letters) {
            for (const form of [`-${letter} x`, `-${letter}x`, `-u${letter} x`, `-${letter}u`]) {
              const cmd = `${program} ${form} hello.txt`;
              const result = await call(cmd);
              assert.equal(result.error?.code, "not_allowed", `${cmd}: ${JSON.stringify(result)}`);
            }
          }
        }
        for (const program of NO_SUCH_OPTION) {
          for (const cmd of [`${program} --files0-from=list`, `${program} --files0 list`]) {
            const result = await call(cmd);
            assert.equal(result.error?.code, "not_allowed", `${cmd}: ${JSON.stringify(result)}`);
          }
        }
        // GNU tail's obsolete forms: each follows hello.txt forever.
        const follows = ["+1f", "+f", "-5f", "-cf", "-5cf", "+5cf", "-bf", "+lf", "-10lf"];
        for (const cmd of follows.map((form) => `tail ${form} hello.txt`)) {
          const result = await call(cmd);
          assert.equal(result.error?.code, "not_allowed", `${cmd}: ${JSON.stringify(result)}`);
        }
      });
    },
  });

  Deno.test({
    name: `shell options (${variant.name}): values and operands are checked as paths`,
    ignore: variant.ignore,
    async fn() {
      await withSession(variant, async (call) => {
        for (
          const cmd of [
            "head --lines 1 ../secret.txt",
            "head -n 1 -- ../secret.txt",
            "cat -- link-out.txt",
            "ls --hide ../secret.txt dir-out",
            "grep -e x ../secret.txt",
          ]
        ) {
          const result = await call(cmd);
          assert.equal(result.error?.code, "path_escape", `${cmd}: ${JSON.stringify(result)}`);
        }
      });
    },
  });

  Deno.test({
    name: `shell options (${variant.name}): unambiguous abbreviations of allowed options run`,
    ignore: variant.ignore,
    async fn() {
      await withSession(variant, async (call) => {
        const ran = async (cmd: string) => {
          const result = await call(cmd);
          assert.equal(result.ok, true, `${cmd}: ${JSON.stringify(result)}`);
          return (result.output as { stdout: string }).stdout;
        };
        assert.equal(await ran("wc --l docs/notes.md"), "3 docs/notes.md\n");
        assert.equal(await ran("head --li 1 docs/notes.md"), "line one\n");
        assert.equal(await ran("tail --lines=1 docs/notes.md"), "line three\n");
        assert.equal(await ran("grep --line-n -e TODO docs/notes.md"), "2:TODO line two\n");
        assert.equal(await ran("cat - hello.txt"), "hello\n");
        assert.equal(await ran("date -u -d @0 +%Y"), "1970\n");
        // Ambiguous for sort's getopt: --r could be --reverse, --random-sort, --random-source.
        assert.equal((await call("sort --r hello.txt")).error?.code, "not_allowed");
      });
    },
  });
}
