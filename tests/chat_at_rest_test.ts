/**
 * What `syn chat` leaves in a state directory: with `SYN_CHAT_KEY` no file holds the
 * conversation in plain text (checkpoint, memory and its WAL, traces), tool arguments
 * that carry content stay out of traces, and every file is 0600 and every folder 0700 —
 * also when the state directory already existed as 0755.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startMockLlmServer } from "./fakes/mock_llm_server.ts";
import { runSyn } from "./fakes/cli_io.ts";

/** `syn chat …args` with `stdin` as its input, in `cwd`, with `env` added to the test's own. */
function runChat(args: string[], stdin: string, env: Record<string, string>, cwd: string) {
  return runSyn(["chat", ...args], { stdin, env, cwd });
}

async function* walk(folder: string): AsyncGenerator<{ path: string; isDirectory: boolean }> {
  for await (const entry of Deno.readDir(folder)) {
    const path = join(folder, entry.name);
    yield { path, isDirectory: entry.isDirectory };
    if (entry.isDirectory) yield* walk(path);
  }
}

Deno.test({
  name: "syn chat with SYN_CHAT_KEY leaves no plain text and no readable file in the state dir",
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir());
    await Deno.mkdir(join(dir, "work"));
    const state = join(dir, "state");
    await Deno.mkdir(state, { mode: 0o755 });
    await Deno.chmod(state, 0o755);
    await using llm = await startMockLlmServer({
      answer: (context) => {
        if (context.prompt.startsWith("TOOL_RESULTS")) return "Saved the ultramarine note.";
        return 'Saving. <<<TOOL_CALLS_JSON>>>[{"id":"t1","tool":"fs.write_text","args":{"path":"n.txt","text":"ultramarine-body-7731"}}]<<<END_TOOL_CALLS_JSON>>>';
      },
    });
    const env = {
      OPENAI_API_KEY: "sk-test-key-0000000000000000",
      OPENAI_ENDPOINT: llm.openaiUrl,
      SYN_CHAT_KEY: "correct horse battery staple",
    };
    const args = ["--session", "k1", "--state-dir", "state", "--root", "work"];
    for (const message of ["my passphrase is ultramarine-pass-9\n", "ultramarine again?\n"]) {
      const run = await runChat(args, message, env, dir);
      assert.equal(run.code, 0, run.stderr);
    }
    assert.equal(
      await Deno.readTextFile(join(dir, "work", "n.txt")),
      "ultramarine-body-7731",
      "the tool ran",
    );
    const seen: string[] = [];
    for await (const entry of walk(state)) {
      const name = entry.path.slice(state.length + 1);
      seen.push(name);
      const mode = (await Deno.stat(entry.path)).mode! & 0o777;
      assert.equal(mode, entry.isDirectory ? 0o700 : 0o600, `${name} is ${mode.toString(8)}`);
      if (entry.isDirectory) continue;
      const bytes = new TextDecoder("latin1").decode(await Deno.readFile(entry.path));
      assert.doesNotMatch(bytes, /ultramarine/i, `${name} holds chat content in plain text`);
    }
    assert.equal((await Deno.stat(state)).mode! & 0o777, 0o700, "the state dir was tightened");
    for (const name of ["memory.sqlite", "sessions/k1/checkpoint.json", "traces/k1.jsonl"]) {
      assert.ok(seen.includes(name), `${name} missing; saw ${seen.join(", ")}`);
    }
    const trace = await Deno.readTextFile(join(state, "traces", "k1.jsonl"));
    assert.match(trace, /"tool_id":"fs.write_text"/);
    assert.match(trace, /"input_params":\{"path":"n.txt","text":"<21 chars>"\}/);
    await Deno.remove(dir, { recursive: true });
  },
});

/** Every file under `state` that holds `needle` in plain text, by its path in the folder. */
async function plainHolders(state: string, needle: RegExp): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of walk(state)) {
    if (entry.isDirectory) continue;
    const bytes = new TextDecoder("latin1").decode(await Deno.readFile(entry.path));
    if (needle.test(bytes)) found.push(entry.path.slice(state.length + 1));
  }
  return found;
}

Deno.test({
  name:
    "syn chat without SYN_CHAT_KEY makes a key once in the config folder and keeps the state dir unreadable",
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir());
    try {
      await Deno.mkdir(join(dir, "work"));
      await Deno.mkdir(join(dir, "home"));
      await using llm = await startMockLlmServer({ answer: () => "Noted, cobalt." });
      // No XDG_CONFIG_HOME: the config folder is HOME/.config, HOME a temporary folder.
      const env = {
        OPENAI_API_KEY: "sk-test-key-0000000000000000",
        OPENAI_ENDPOINT: llm.openaiUrl,
        HOME: join(dir, "home"),
        XDG_CONFIG_HOME: "",
      };
      const args = ["--session", "k2", "--state-dir", "state", "--root", "work"];
      const first = await runChat(args, "my word is cobalt-pass-31\n", env, dir);
      assert.equal(first.code, 0, first.stderr);
      const state = join(dir, "state");
      assert.deepEqual(await plainHolders(state, /cobalt/i), [], "chat content in plain text");
      const keyPath = join(dir, "home", ".config", "syn", "chat.key");
      assert.match(first.stderr, new RegExp(`chat key made: ${keyPath.replaceAll(".", "\\.")}`));
      const key = await Deno.readTextFile(keyPath);
      assert.match(key, /^[0-9a-f]{64}\n$/);
      assert.equal((await Deno.stat(keyPath)).mode! & 0o777, 0o600);
      assert.equal((await Deno.stat(join(dir, "home", ".config", "syn"))).mode! & 0o777, 0o700);
      const second = await runChat(args, "and again\n", env, dir);
      assert.equal(second.code, 0, second.stderr);
      assert.match(second.stderr, /resumed: 2 earlier messages/);
      assert.doesNotMatch(second.stderr, /chat key made/);
      assert.equal(await Deno.readTextFile(keyPath), key, "the key was made once");
      assert.deepEqual(await plainHolders(state, /cobalt/i), []);
      assert.deepEqual(
        await plainHolders(state, new RegExp(key.trim())),
        [],
        "the key is in the state",
      );
      // Moving the state elsewhere: the key goes along as SYN_CHAT_KEY (or the file, copied).
      await Deno.mkdir(join(dir, "elsewhere"));
      const moved = await runChat(args, "still there?\n", {
        ...env,
        HOME: join(dir, "elsewhere"),
        SYN_CHAT_KEY: key.trim(),
      }, dir);
      assert.equal(moved.code, 0, moved.stderr);
      assert.match(moved.stderr, /resumed: 4 earlier messages/);
      const without = await runChat(
        args,
        "who am I?\n",
        { ...env, HOME: join(dir, "elsewhere") },
        dir,
      );
      assert.notEqual(without.code, 0, "another key opened the state");
      assert.match(without.stderr, /not the key it was written with/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "syn chat refuses a chat key inside the state dir, and a state dir with no config folder",
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir());
    try {
      await Deno.mkdir(join(dir, "work"));
      const args = [
        "--session",
        "k3",
        "--state-dir",
        "state",
        "--root",
        "work",
        "--engine",
        "template",
      ];
      const inside = await runChat(
        args,
        "hello\n",
        { XDG_CONFIG_HOME: join(dir, "state", "cfg") },
        dir,
      );
      assert.equal(inside.code, 2, inside.stderr);
      assert.match(inside.stderr, /chat key would be inside the state folder/);
      const nowhere = await runChat(args, "hello\n", { XDG_CONFIG_HOME: "", HOME: "" }, dir);
      assert.equal(nowhere.code, 2, nowhere.stderr);
      assert.match(nowhere.stderr, /No config folder for the chat key: set SYN_CHAT_KEY/);
      await assert.rejects(Deno.stat(join(dir, "state", "cfg", "syn", "chat.key")));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("events.sqlite and http_cache.sqlite are 0600 with their side files, in a tightened 0700 folder", async () => {
  const { openSqliteEventStore } = await import("../lib/synthesize/mod.ts");
  const { openHttpCache } = await import("../lib/tools/mod.ts");
  const { makeEvent } = await import("./fakes/event_store_conformance.ts");
  const state = await Deno.makeTempDir();
  try {
    await Deno.chmod(state, 0o755);
    const events = openSqliteEventStore(state);
    await events.append([await makeEvent({ event_id: "e1" })]);
    const cache = await openHttpCache(state);
    cache.put({
      url: "https://a.test/",
      final_url: "https://a.test/",
      status: 200,
      content_type: "text/plain",
      body: "cached body",
      truncated: false,
      stored_at: 1,
      hops: [{ host: "a.test", exact: false }],
    });
    const names: string[] = [];
    for await (const entry of Deno.readDir(state)) {
      names.push(entry.name);
      const mode = (await Deno.stat(join(state, entry.name))).mode! & 0o777;
      assert.equal(mode, 0o600, `${entry.name} is ${mode.toString(8)}`);
    }
    for (const name of ["events.sqlite-wal", "http_cache.sqlite-wal"]) {
      assert.ok(names.includes(name), `${name} missing; saw ${names.join(", ")}`);
    }
    assert.equal((await Deno.stat(state)).mode! & 0o777, 0o700);
    cache.close();
    await events[Symbol.asyncDispose]();
  } finally {
    await Deno.remove(state, { recursive: true });
  }
});
