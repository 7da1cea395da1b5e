import { childEnv } from "./fakes/child_env.ts";
/**
 * `syn chat` as a user runs it: the REPL with piped input and a state directory, and
 * `syn chat serve` as a process — ready file, kill -9 in the middle of a reply, restart
 * from the checkpoint. The provider is the mock server speaking the real OpenAI wire.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startMockLlmServer } from "./fakes/mock_llm_server.ts";
import { runSyn, SELF_COMMAND } from "./fakes/cli_io.ts";
import { TestSocket } from "./fakes/chat_gateway.ts";

/** `syn chat …args` with `stdin` as its input, in `cwd`, with `env` added to the test's own. */
function runChat(args: string[], stdin: string, env: Record<string, string>, cwd: string) {
  return runSyn(["chat", ...args], { stdin, env, cwd });
}

Deno.test({
  name:
    "syn chat REPL: piped messages, tools in the sandbox, traces without content, resume from the checkpoint",
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir());
    await Deno.mkdir(join(dir, "work"));
    await Deno.writeTextFile(join(dir, "work", "notes.md"), "TODO: water the plants\n");
    let call = 0;
    await using llm = await startMockLlmServer({
      answer: (context) => {
        call++;
        if (context.prompt.startsWith("TOOL_RESULTS")) return "Your notes say to water the plants.";
        if (context.prompt.includes("notes")) {
          return 'Reading. <<<TOOL_CALLS_JSON>>>[{"id":"t1","tool":"fs.read_text","args":{"path":"notes.md"}}]<<<END_TOOL_CALLS_JSON>>><<<NOTES_JSON>>>{"add_open_loops":["plants"]}<<<END_NOTES_JSON>>>';
        }
        return `Echo ${context.prompt} \u001b[31mred\u001b[0m`;
      },
    });
    const env = { OPENAI_API_KEY: "sk-test-key-0000000000000000", OPENAI_ENDPOINT: llm.openaiUrl };
    const args = ["--session", "repl1", "--state-dir", "state", "--root", "work"];
    const first = await runChat(args, "what do my notes say?\n/state\n", env, dir);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, "Reading. Your notes say to water the plants.\n");
    assert.match(first.stderr, /→ fs\.read_text \{"path":"notes\.md"\}/);
    assert.match(first.stderr, /✓ fs\.read_text/);
    assert.match(first.stderr, /"open_loops": \[\s*"plants"\s*\]/);
    const trace = (await Deno.readTextFile(join(dir, "state", "traces", "repl1.jsonl"))).trim()
      .split("\n").map((line) => JSON.parse(line));
    const kinds = new Set(trace.map((event) => event.kind));
    for (
      const kind of [
        "llm_req",
        "llm_stream",
        "llm_done",
        "notes_patch",
        "actions",
        "retrieval",
        "tool_plan",
        "tool_start",
        "tool_done",
      ]
    ) {
      if (kind === "actions") continue; // no action in this reply
      assert.ok(kinds.has(kind), `trace has no ${kind}`);
    }
    const traceText = JSON.stringify(trace);
    assert.ok(!traceText.includes("water the plants"), "chat content reached the trace");
    assert.ok(!traceText.includes("what do my notes say"), "the user's message reached the trace");

    const second = await runChat(args, "and the plants again?\n", env, dir);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stderr, /resumed: \d+ earlier messages/);
    assert.equal(
      second.stdout,
      "Echo and the plants again? \\x1b[31mred\\x1b[0m\n",
      "escapes are neutralised",
    );
    const last = llm.requests.at(-1)!.body as { messages: { role: string; content: string }[] };
    assert.ok(
      last.messages.some((message) => message.content === "what do my notes say?"),
      "history was not sent",
    );
    assert.ok(
      last.messages[0].content.includes("=== RETRIEVED_MEMORY ==="),
      "memory was not retrieved",
    );
    assert.ok(call >= 3);
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name: "syn chat without a key uses the labelled template backend and saves nothing",
  async fn() {
    const dir = await Deno.makeTempDir();
    const result = await runChat([], "hi\n", {}, dir);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^\[template reply\]/);
    assert.match(result.stderr, /nothing is saved/);
    assert.match(result.stderr, /fresh temporary folder/);
    assert.deepEqual([...Deno.readDirSync(dir)], []);
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name: "syn chat REPL: a piped line over 256 KiB is skipped and said so; the next line is sent",
  async fn() {
    const dir = await Deno.makeTempDir();
    const long = "x".repeat(256 * 1024 + 1);
    const result = await runChat([], `${long}\nhi\n`, {}, dir);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /skipped a line of 262145 bytes: the limit is 256 KiB/);
    assert.equal(result.stdout.match(/\[template reply\]/g)?.length, 1, result.stdout);
    assert.ok(!result.stdout.includes("xxxx"));
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name: "syn chat: bad usage exits 2 with a hint",
  async fn() {
    const dir = await Deno.makeTempDir();
    for (
      const [args, hint] of [
        [["--engine", "hal"], /--engine must be one of/],
        [["--session", "../x"], /--session/],
        [["--root", "nope"], /--root does not exist/],
        [["stray"], /unexpected argument/],
      ] as const
    ) {
      const result = await runChat([...args], "", {}, dir);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, hint);
    }
    await Deno.remove(dir, { recursive: true });
  },
});

async function startServe(dir: string, env: Record<string, string>, extra: string[] = []) {
  const readyFile = join(dir, "ready.json");
  await Deno.remove(readyFile).catch(() => {});
  // A file left from before, readable by all: the token must not stay readable.
  await Deno.writeTextFile(readyFile, "", { mode: 0o644 });
  await Deno.chmod(readyFile, 0o644);
  const child = new Deno.Command(SELF_COMMAND[0], {
    args: [
      ...SELF_COMMAND.slice(1),
      "chat",
      "serve",
      "--port",
      "0",
      "--ready-file",
      readyFile,
      "--state-dir",
      join(dir, "state"),
      "--root",
      dir,
      ...extra,
    ],
    clearEnv: true,
    env: childEnv(env),
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  for (let i = 0; i < 300; i++) {
    try {
      const ready = JSON.parse(await Deno.readTextFile(readyFile));
      const token = new URL(ready.url).searchParams.get("token") ?? "";
      return {
        child,
        ready: ready as { host: string; port: number; url: string },
        readyFile,
        token,
        mode: (await Deno.stat(readyFile)).mode! & 0o777,
      };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  child.kill("SIGKILL");
  const stderr = new TextDecoder().decode((await child.output()).stderr);
  throw new Error(`chat serve did not become ready: ${stderr}`);
}

Deno.test({
  name:
    "syn chat serve: ready file, kill -9 during a reply, restart continues the session from its checkpoint",
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir());
    await using llm = await startMockLlmServer({
      answer: (
        context,
      ) => (context.prompt.includes("slow") ? "x".repeat(400) : `Noted: ${context.prompt}`),
      chunkSize: 2,
      frameDelayMs: 5,
    });
    const env = { OPENAI_API_KEY: "sk-test-key-0000000000000000", OPENAI_ENDPOINT: llm.openaiUrl };
    const first = await startServe(dir, env);
    assert.equal(first.ready.host, "127.0.0.1");
    assert.match(first.token, /^[0-9a-f]{64}$/, "a 256-bit token is generated");
    assert.equal(first.ready.url, `http://127.0.0.1:${first.ready.port}/?token=${first.token}`);
    assert.equal(first.mode, 0o600, "the ready file holds the token: mode 0600");
    const socket = await TestSocket.open(
      `ws://127.0.0.1:${first.ready.port}/chat/kgent?session=keep`,
      { authorization: `Bearer ${first.token}` },
    );
    socket.message("remember the blue door", "c1");
    await socket.done("c1");
    socket.message("now something slow", "c2");
    await socket.until(() => socket.of("c2").length >= 3, "the slow reply to stream");
    first.child.kill("SIGKILL");
    await first.child.status;
    await first.child.stderr.cancel();
    await socket.closed;

    const second = await startServe(dir, env);
    assert.notEqual(second.token, first.token, "each start has its own token");
    const again = await TestSocket.open(
      `ws://127.0.0.1:${second.ready.port}/chat/kgent?session=keep&token=${second.token}`,
    );
    again.message("what did I ask you to remember?", "c3");
    await again.done("c3");
    const sent = llm.requests.at(-1)!.body as { messages: { role: string; content: string }[] };
    assert.ok(
      sent.messages.some((message) => message.content === "remember the blue door"),
      "history lost on restart",
    );
    await again.close();
    second.child.kill("SIGTERM");
    const status = await second.child.status;
    await second.child.stderr.cancel();
    assert.equal(status.code, 0);
    await assert.rejects(
      Deno.stat(second.readyFile),
      Deno.errors.NotFound,
      "ready file left behind",
    );
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name:
    "syn chat serve: a wide bind needs a token (exit 2), --no-auth is loopback only, SYN_SERVER_TOKEN is used",
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir());
    for (const host of ["0.0.0.0", "::"]) {
      const refused = await runChat(["serve", "--host", host, "--no-auth"], "", {}, dir);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /--no-auth: serving without a token is refused on/);
      assert.equal(refused.stderr.trim().split("\n").length, 1, refused.stderr);
    }
    const token = "t".repeat(40);
    const served = await startServe(dir, { SYN_SERVER_TOKEN: token });
    assert.equal(served.token, token);
    const health = `http://127.0.0.1:${served.ready.port}/health`;
    const allowed = await fetch(health, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(allowed.status, 200);
    await allowed.body?.cancel();
    const denied = await fetch(health);
    assert.equal(denied.status, 401);
    await denied.body?.cancel();
    served.child.kill("SIGTERM");
    await served.child.status;
    await served.child.stderr.cancel();
    const open = await startServe(dir, {}, ["--no-auth"]);
    assert.equal(open.token, "");
    const response = await fetch(`http://127.0.0.1:${open.ready.port}/health`);
    assert.equal(response.status, 200);
    await response.body?.cancel();
    open.child.kill("SIGTERM");
    const stderr = new TextDecoder().decode((await open.child.output()).stderr);
    assert.match(stderr, /chat:no_auth anyone who can reach/);
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name: "syn chat REPL: SIGINT (Ctrl-C) stops the current reply and the session goes on",
  async fn() {
    const dir = await Deno.makeTempDir();
    await using llm = await startMockLlmServer({
      answer: (
        context,
      ) => (context.prompt.includes("long")
        ? "y".repeat(2000)
        : `short answer to ${context.prompt}`),
      chunkSize: 2,
      frameDelayMs: 10,
    });
    const child = new Deno.Command(SELF_COMMAND[0], {
      args: [...SELF_COMMAND.slice(1), "chat", "--engine", "openai"],
      clearEnv: true,
      env: childEnv({
        OPENAI_API_KEY: "sk-test-key-0000000000000000",
        OPENAI_ENDPOINT: llm.openaiUrl,
      }),
      cwd: dir,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    const writer = child.stdin.getWriter();
    const encoder = new TextEncoder();
    const reader = child.stdout.getReader();
    let out = "";
    const readUntil = async (check: (text: string) => boolean) => {
      while (!check(out)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stdout ended: ${out}`);
        out += new TextDecoder().decode(value);
      }
    };
    await writer.write(encoder.encode("a long one please\n"));
    await readUntil((text) => text.includes("yyyy"));
    child.kill("SIGINT");
    await readUntil((text) => text.includes("\n"));
    await writer.write(encoder.encode("second\n"));
    await readUntil((text) => text.includes("short answer to second"));
    await writer.close();
    reader.releaseLock();
    const status = await child.status;
    clearTimeout(timer);
    const stderr = new TextDecoder().decode(await new Response(child.stderr).arrayBuffer());
    assert.equal(status.code, 0, stderr);
    assert.match(stderr, /\(stopped\)/);
    assert.ok(out.split("\n")[0].length < 2000, "the first reply was not stopped");
    await child.stdout.cancel().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  },
});
