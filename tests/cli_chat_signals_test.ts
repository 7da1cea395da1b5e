/**
 * `syn chat` (the REPL) ended by SIGTERM or SIGHUP (its terminal closed) cleans up as `/quit`
 * does: the fresh temporary sandbox root it made is gone. Real signals to a real process.
 */
import assert from "node:assert/strict";
import { childEnv, killAfter } from "./fakes/child_env.ts";
import { SELF_COMMAND } from "./fakes/cli_io.ts";

const CODES = { SIGTERM: 143, SIGHUP: 129 } as const;

for (const signal of ["SIGTERM", "SIGHUP"] as const) {
  Deno.test({
    name: `syn chat removes its temporary root on ${signal} and exits ${CODES[signal]}`,
    async fn() {
      const tmp = await Deno.makeTempDir({ prefix: "syn_chat_signal_" });
      const child = new Deno.Command(SELF_COMMAND[0], {
        args: [...SELF_COMMAND.slice(1), "chat"],
        clearEnv: true,
        env: childEnv({ TMPDIR: tmp, HOME: tmp }),
        cwd: tmp,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const cancel = killAfter(child);
      const stdout = new Response(child.stdout).text();
      const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
      try {
        let text = "";
        // The banner names the root and ends with the /help line: the REPL is reading.
        while (!/type \/help/.test(text)) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`syn chat ended early:\n${text}`);
          text += value;
        }
        const root = /fresh temporary folder: (\S+)/.exec(text)?.[1];
        assert.ok(root?.startsWith(tmp), text);
        assert.ok((await Deno.stat(root!)).isDirectory);
        child.kill(signal);
        const status = await child.status;
        await stdout;
        assert.equal(status.code, CODES[signal], text);
        await assert.rejects(() => Deno.stat(root!), Deno.errors.NotFound);
      } finally {
        cancel();
        reader.releaseLock();
        await child.stdin.close().catch(() => {});
        await Deno.remove(tmp, { recursive: true });
      }
    },
  });
}
