/**
 * The chat REPL at a real terminal (tmux, when installed): a `> ` prompt after each reply,
 * line editing with arrows and Ctrl-A/Ctrl-E, ↑ for the previous line, no raw escape codes
 * on the screen, Ctrl-D to leave.
 */
import assert from "node:assert/strict";
import { childEnv } from "./fakes/child_env.ts";
import { SELF_COMMAND } from "./fakes/cli_io.ts";

function which(program: string): string | undefined {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (Deno.statSync(`${dir}/${program}`).isFile) return `${dir}/${program}`;
    } catch {
      // not here
    }
  }
  return undefined;
}

const TMUX = which("tmux");
if (!TMUX) console.warn("skipping the REPL terminal test: tmux is not installed");

const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

Deno.test({
  name: "the chat REPL edits lines, recalls history and prompts after each reply in a terminal",
  ignore: !TMUX,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "syn_repl_tmux_" });
    // A server of its own: nothing of the user's tmux is touched.
    const socket = `syn-test-${crypto.randomUUID().slice(0, 8)}`;
    const tmux = async (...args: string[]) => {
      const output = await new Deno.Command(TMUX!, {
        args: ["-L", socket, ...args],
        env: { TMUX: "" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      return new TextDecoder().decode(output.stdout);
    };
    // capture-pane drops the spaces that end a row: the prompt "> " reads ">".
    const screen = async () => (await tmux("capture-pane", "-p", "-t", "repl")).trimEnd();
    const waitFor = async (pattern: RegExp, what: string) => {
      const deadline = Date.now() + 60_000;
      let text = "";
      while (!pattern.test(text = await screen())) {
        if (Date.now() > deadline) throw new Error(`no ${what} on the screen:\n${text}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return text;
    };
    try {
      await Deno.mkdir(`${dir}/project`);
      const env = Object.entries(childEnv({ HOME: dir, TERM: "xterm" }))
        .map(([name, value]) => `${name}=${quote(value)}`).join(" ");
      const command = `cd ${quote(dir)} && exec env -i ${env} ${
        SELF_COMMAND.map(quote).join(" ")
      } chat --root project`;
      await tmux("new-session", "-d", "-s", "repl", "-x", "200", "-y", "40", command);
      await tmux("set-option", "-t", "repl", "remain-on-exit", "on");
      await waitFor(/type \/help[^\n]*\n>$/, "prompt after the banner");
      await tmux("send-keys", "-t", "repl", "helo", "Left", "l", "C-a", "X", "C-e", "Enter");
      const replied = await waitFor(
        /You said \(1 word\): "Xhello"[\s\S]*\n>$/,
        "prompt after a reply",
      );
      assert.ok(!replied.includes("^[") && !replied.includes("\u001b"), "no raw escape codes");
      await tmux("send-keys", "-t", "repl", "Up");
      await waitFor(/\n> Xhello$/, "the previous line recalled");
      await tmux("send-keys", "-t", "repl", "C-u", "C-d");
      // The pane is dead once the REPL has left and closed the terminal (tmux prints its
      // "Pane is dead" line only when it also has the exit status in hand).
      const deadline = Date.now() + 60_000;
      while ((await tmux("list-panes", "-t", "repl", "-F", "#{pane_dead}")).trim() !== "1") {
        if (Date.now() > deadline) throw new Error(`the REPL did not end:\n${await screen()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.doesNotMatch(await screen(), /\^\[/);
    } finally {
      await tmux("kill-server").catch(() => "");
      await Deno.remove(dir, { recursive: true });
    }
  },
});
