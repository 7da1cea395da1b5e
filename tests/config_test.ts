/**
 * One configuration, read once: the table, the frozen object built from it, nothing below
 * `main.ts` reading the environment, and the rules every command shares (state folder,
 * validator transport, server token, engines, shell words).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  chooseServerToken,
  CONFIG_VARIABLES,
  loadConfig,
  splitShellWords,
  SynError,
} from "../lib/core/mod.ts";
import { COMMANDS, runCli } from "../lib/cli/mod.ts";
import { resolveServeTarget } from "../lib/cli/mcp_serve.ts";
import { CHAT_ENGINES } from "../lib/chat/mod.ts";
import { ENGINES } from "../lib/generate/mod.ts";
import { PROVIDERS } from "../lib/llm/mod.ts";
import { resolveValidatorTarget } from "../lib/mcp/mod.ts";
import { fakeIo } from "./fakes/cli_io.ts";

const root = new URL("../", import.meta.url);
const configOf = (values: Record<string, string>) => loadConfig((name) => values[name]);

function* libSources(directory = new URL("lib/", root)): Generator<URL> {
  for (const entry of Deno.readDirSync(directory)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), directory);
    if (entry.isDirectory) yield* libSources(url);
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) yield url;
  }
}

/** Reads of the environment that are not configuration, each with its reason. */
const ALLOWED_READS: Record<string, RegExp> = {
  // The sandbox's self-check: reading the environment inside the worker must be refused.
  "lib/tools/_sandbox_worker.ts": /\(\) => Deno\.env\.toObject\(\)/,
};

Deno.test("nothing under lib/ reads the environment: it receives the configuration", () => {
  const reads = /\bDeno\.env\.(?:get|has|toObject)\b|\bprocess\.env\b|\benv\s*\(/;
  const found: string[] = [];
  for (const url of libSources()) {
    const path = url.pathname.slice(root.pathname.length);
    const text = Deno.readTextFileSync(url).replace(ALLOWED_READS[path] ?? /$^/, "");
    text.split("\n").forEach((line, index) => {
      if (reads.test(line)) found.push(`${path}:${index + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(found, []);
});

Deno.test("loadConfig() asks for each variable of the table once and for nothing else", () => {
  const asked: string[] = [];
  loadConfig((name) => {
    asked.push(name);
    return undefined;
  });
  assert.deepEqual(asked, CONFIG_VARIABLES.map((entry) => entry.name));
});

Deno.test("loadConfig() is frozen all the way down; empty and blank values are unset", () => {
  const config = configOf({ SYN_STATE_DIR: "", MCP_PORT: "  ", OPENAI_MODEL: " m1 " });
  assert.equal(config.stateDir, undefined);
  assert.equal(config.mcp.port, undefined);
  assert.equal(config.llm.openai.model, "m1");
  assert.ok(Object.isFrozen(config) && Object.isFrozen(config.llm.openai));
  assert.ok(Object.isFrozen(config.secrets));
});

Deno.test("the secrets are the table's secret values and the credentials of its URLs", () => {
  const config = configOf({
    OPENAI_API_KEY: "sk-test-1234",
    SYN_CHAT_KEY: "chat-key-5678",
    SYN_EVENT_STORE: "postgres://events:pg-pass-9@db:5432/x",
    OPENAI_MODEL: "not-a-secret",
  });
  for (const secret of ["sk-test-1234", "chat-key-5678", "pg-pass-9"]) {
    assert.ok(config.secrets.includes(secret), secret);
  }
  assert.equal(config.secrets.includes("not-a-secret"), false);
});

Deno.test('SYN_STATE_DIR="" means no folder named, for every command: tools and synthesize use .syn/', async () => {
  const work = await Deno.realPath(await Deno.makeTempDir({ prefix: "syn-state-" }));
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("hello"),
  );
  try {
    Deno.mkdirSync(join(work, "root"));
    const url = `http://127.0.0.1:${server.addr.port}/`;
    const tools = fakeIo({ cwd: work, env: { SYN_STATE_DIR: "" } });
    const args = ["tools", "run", "http.get", "--root", "root", "--grant", "net:127.0.0.1"];
    const code = await runCli([...args, "--args", JSON.stringify({ url })], tools, COMMANDS);
    assert.equal(code, 0, tools.err() + tools.out());
    Deno.writeTextFileSync(join(work, "events.jsonl"), "");
    const synthesize = fakeIo({ cwd: work, env: { SYN_STATE_DIR: "" } });
    await runCli(["synthesize", "ingest", "events.jsonl"], synthesize, COMMANDS);
    const state = [...Deno.readDirSync(join(work, ".syn"))].map((entry) => entry.name);
    assert.ok(state.includes("http_cache.sqlite"), state.join(", "));
    assert.ok(state.includes("events.sqlite"), state.join(", "));
    assert.equal(
      existsIn(work, "http_cache.sqlite"),
      false,
      "nothing written to the folder itself",
    );
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

function existsIn(folder: string, name: string): boolean {
  return [...Deno.readDirSync(folder)].some((entry) => entry.name === name);
}

Deno.test("server and client read MCP_* with one parser: the same errors, port 0 by role", () => {
  const server = (values: Record<string, string>) => resolveServeTarget({}, configOf(values));
  const client = (values: Record<string, string>) =>
    resolveValidatorTarget(configOf(values), ["/bin/syn"]);
  const cases: Record<string, string>[] = [
    { MCP_ENDPOINT: "tcp" },
    { MCP_ENDPOINT: "tcp", MCP_PORT: "seven" },
    { MCP_ENDPOINT: "tcp", MCP_PORT: "70000" },
    { MCP_ENDPOINT: "socket" },
  ];
  for (const values of cases) {
    const errors = [server, client].map((end) => {
      try {
        end(values);
      } catch (error) {
        return error instanceof SynError ? `${error.code}: ${error.message}` : String(error);
      }
      return "no error";
    });
    assert.match(errors[0], /^validator_config: /, JSON.stringify(values));
    assert.equal(errors[0], errors[1], JSON.stringify(values));
  }
  const anyPort = { MCP_ENDPOINT: "tcp", MCP_PORT: "0" };
  assert.deepEqual(server(anyPort), { mode: "tcp", hostname: "127.0.0.1", port: 0 });
  assert.throws(
    () => client(anyPort),
    (error) =>
      error instanceof SynError && error.code === "validator_config" &&
      /MCP_PORT=0 means any free port/.test(error.message),
  );
});

Deno.test("one server token rule: 32 printable characters or more, --no-auth on loopback only", () => {
  const choose = (given: string | undefined, hostname = "127.0.0.1", noAuth = false) =>
    chooseServerToken({ hostname, noAuth, given, newToken: () => "fresh" });
  assert.deepEqual(choose(undefined), { token: "fresh", given: false });
  assert.deepEqual(choose("t".repeat(32)), { token: "t".repeat(32), given: true });
  for (const weak of ["t".repeat(31), `${"t".repeat(20)} ${"t".repeat(20)}`]) {
    assert.throws(() => choose(weak), /32 or more printable characters/);
  }
  assert.deepEqual(choose(undefined, "::1", true), { token: undefined, given: false });
  assert.throws(
    () => choose(undefined, "0.0.0.0", true),
    /serving without a token is refused on 0\.0\.0\.0/,
  );
});

Deno.test("chat serve and mcp-serve --http refuse the same weak SYN_SERVER_TOKEN", async () => {
  const weak = { SYN_SERVER_TOKEN: "twenty-characters-20" };
  const chat = fakeIo({ env: weak });
  assert.equal(await runCli(["chat", "serve", "--port", "0"], chat, COMMANDS), 2);
  assert.match(chat.err(), /SYN_SERVER_TOKEN must be 32 or more/);
  const mcp = fakeIo({ env: weak });
  assert.equal(await runCli(["mcp-serve", "--http", "127.0.0.1:0"], mcp, COMMANDS), 2);
  assert.match(mcp.err(), /SYN_SERVER_TOKEN must be 32 or more/);
});

Deno.test("every engine list is derived from the one provider list of lib/llm", () => {
  assert.deepEqual(CHAT_ENGINES, ["auto", "template", ...PROVIDERS]);
  assert.deepEqual(ENGINES, [
    "deterministic",
    ...PROVIDERS.filter((name) => name !== "openai-compatible"),
  ]);
  // No other list spells the providers out.
  const list = /\[\s*(?:"(?:openai|anthropic|gemini|openai-compatible)",?\s*){3,}/;
  const lists: string[] = [];
  for (const url of libSources()) {
    if (list.test(Deno.readTextFileSync(url))) lists.push(url.pathname.slice(root.pathname.length));
  }
  assert.deepEqual(lists, ["lib/core/config.ts"]);
});

Deno.test("one shell-word splitter: shell.exec and MCP_ADAPTER_CMD split alike", () => {
  const line = `prog "a b" 'c d' e\\ f "g\\$h"`;
  const adapter = resolveValidatorTarget(
    configOf({ MCP_ENDPOINT: "stdio", MCP_ADAPTER_CMD: line }),
    ["/bin/syn"],
  );
  assert.deepEqual(adapter, { transport: "stdio", command: splitShellWords(line), own: false });
  assert.deepEqual(splitShellWords(line), ["prog", "a b", "c d", "e f", "g$h"]);
  // Any other splitter is a wrapper around that one.
  for (const url of libSources()) {
    const path = url.pathname.slice(root.pathname.length);
    const text = Deno.readTextFileSync(url);
    if (path === "lib/core/shell_words.ts" || !/function split\w*\(/.test(text)) continue;
    if (!/(?:Words|CommandLine|Command)\(/.test(text.match(/function split\w*\(/)![0])) continue;
    assert.match(text, /import \{[^}]*splitShellWords[^}]*\} from "\.\.\/core\/mod\.ts"/, path);
  }
});
