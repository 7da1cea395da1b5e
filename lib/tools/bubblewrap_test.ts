import assert from "node:assert/strict";
import { childEnv } from "../../tests/fakes/child_env.ts";
import { bubblewrapArgv } from "./bubblewrap.ts";
import { detectBubblewrap } from "./shell_exec.ts";

Deno.test("bubblewrapArgv() unshares everything and binds only system folders and the root", async () => {
  const argv = await bubblewrapArgv("/usr/bin/bwrap", "/srv/root", ["/usr/bin/cat", "a.txt"]);
  assert.deepEqual(argv.slice(0, 6), [
    "/usr/bin/bwrap",
    "--die-with-parent",
    "--new-session",
    "--unshare-all",
    "--cap-drop",
    "ALL",
  ]);
  const text = argv.join(" ");
  assert.match(text, /--bind \/srv\/root \/srv\/root/);
  assert.match(
    text,
    /--clearenv --setenv PATH \/usr\/bin:\/bin --setenv LANG C.UTF-8 -- \/usr\/bin\/cat a.txt$/,
  );
  for (const folder of ["/etc", "/home", "/root", "/tmp", "/proc", "/work"]) {
    assert.ok(!argv.includes(folder), `${folder} is bound`);
  }
  await assert.rejects(bubblewrapArgv("/usr/bin/bwrap", "/srv/root", ["cat"]), /absolute/);
});

Deno.test({
  name: "inside bubblewrap /etc/passwd is absent and the network is gone",
  ignore: !(await detectBubblewrap()),
  async fn() {
    const root = await Deno.realPath(await Deno.makeTempDir());
    const run = async (command: string[]) => {
      const argv = await bubblewrapArgv("/usr/bin/bwrap", root, command);
      const output = await new Deno.Command(argv[0], {
        args: argv.slice(1),
        clearEnv: true,
        env: childEnv(),
        stdout: "piped",
        stderr: "piped",
      }).output();
      return {
        code: output.code,
        out: new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr),
      };
    };
    const passwd = await run(["/usr/bin/cat", "/etc/passwd"]);
    assert.notEqual(passwd.code, 0);
    assert.match(passwd.out, /No such file/);
    const home = await run(["/usr/bin/ls", "/home", "/root", "/tmp"]);
    assert.notEqual(home.code, 0);
    await Deno.remove(root, { recursive: true });
  },
});
