import {
  chooseServerToken,
  errorMessage,
  formatBytes,
  neutralizeTerminalText,
  parseAllowedOrigin,
  readLines,
  resolvePath,
  serveLocal,
  SynError,
  UsageError,
  writeFileAtomic,
} from "../core/mod.ts";
import {
  CHAT_ENGINES,
  type ChatEngine,
  type ChatEvent,
  type ChatFluxConfig,
  ChatGateway,
  chatModel,
  type ChatSession,
  DEFAULT_CHAT_FLUX_CONFIG,
  MemoryStore,
  openChatKeyFile,
  openChatSession,
  ReplyBuffer,
  SESSION_ID,
} from "../chat/mod.ts";
import { isCapability } from "../tools/mod.ts";
import { numberFlag, parseCommandArgs } from "./args.ts";
import { type ChatEnvironment, chatRoot, chatToolRegistry, leaveRoot } from "./_chat_backend.ts";
import { type CliIo, EXIT } from "./io.ts";
import { chosenStateDirectory } from "./_state_dir.ts";
import { onEndSignals, onStopSignals, STOP_SIGNALS } from "./_stop_signals.ts";
import { replInput } from "./_repl_input.ts";

export const help =
  `syn chat — streaming agent chat: a REPL, and a WebSocket gateway with a web page

Usage:
  syn chat [--session ID] [--state-dir DIR] [--root DIR] [--engine E] [options]
  syn chat serve [--host H] [--port N] [--ready-file F] [--state-dir DIR] [--root DIR]
                 [--engine E] [--stream-timeout-s S] [--entropy-budget B]
                 [--peer-entropy-budget B] [--session-ttl-s S]
                 [--allow-host NAME] [--allow-origin O] [--no-auth] [--max-sessions N]
                 [--max-connections N]

The REPL streams replies as they arrive and shows tool calls and their results compactly.
Ctrl-C stops the current reply without ending the session; Ctrl-D or /quit ends it. Piped
standard input works for scripting: each line is one message, answered before the next.

Commands in the REPL:
  /help              this list
  /tools             the tools the model may call
  /grant <cap>       grant a capability (net, net:<host>); /revoke <cap> withdraws it
  /state             goals, open loops, decisions, constraints, capabilities
  /checkpoint        write the checkpoint now (needs --state-dir)
  /condense          fold older messages into the summary
  /memory <query>    search past turns and notes (needs --state-dir)
  /quit              leave

Tool calls run in the sandbox of 'syn tools' (see syn tools --help): files only inside
--root (default: a fresh temporary folder, said so at start), allowlisted programs without
a shell, http only with a granted capability.

Engines (--engine): auto (default: the first of OPENAI_API_KEY, ANTHROPIC_API_KEY,
GEMINI_API_KEY that is set, else OPENAI_ENDPOINT as an OpenAI-compatible server, else the
template backend), template (offline, clearly labelled canned replies), openai, anthropic,
gemini, openai-compatible. The template backend also answers when the model is down.

State (--state-dir DIR, default $SYN_STATE_DIR; without one nothing is written to disk):
  DIR/sessions/<id>/checkpoint.json   state and recent messages, AES-GCM encrypted with the
                                      chat key; a session resumes from it
  DIR/traces/<id>.jsonl               trace events: ids, counts and timings only, unless
                                      --log-content
  DIR/memory.sqlite                   past turns, searched for every message (BM25): this
                                      session's only, unless SYN_CHAT_MEMORY_SCOPE=all_sessions;
                                      encrypted with the chat key
  DIR/http_cache.sqlite               the http.get cache
  DIR/synthesized/*.json              promoted composite tools offered as composite.<id>
                                      (read only from a named state folder, each checked)
The chat key is SYN_CHAT_KEY, else one made once in $XDG_CONFIG_HOME/syn/chat.key (default
~/.config/syn/chat.key, mode 0600, never inside DIR): move it along with DIR, or the saved
sessions cannot be read.

Gateway (syn chat serve): GET / is a chat page; WebSockets /perturb/<agent>?session=ID
(client frames), /observe/<agent>?session=ID (events) and /chat/<agent>?session=ID (both),
wire protocol 1.0.0 (docs/chat.md in the repository). A disconnect never cancels a
reply; reconnect and send {"action":"resume","data":{"correlation_id":…,"after_sequence":N}}.
Every request needs the server's token: open the URL printed on the chat:ready line
(http://127.0.0.1:PORT/?token=…; the page then keeps it in a cookie); other clients send
"Authorization: Bearer <token>" or, for a WebSocket, ?token=. The token is SYN_SERVER_TOKEN
(32+ characters) or a fresh 256-bit one per start, also written to --ready-file (mode 0600).

Options:
  --session ID          session id (letters, digits, - and _; default: a new one)
  --state-dir DIR       where sessions, traces and memory live
  --root DIR            the sandbox root for tool calls
  --engine E            see above; --model M and --endpoint URL override the provider's
  --grant CAP           grant a capability from the start (repeatable)
  --shell-allow LIST    programs added to the shell allowlist (comma-separated)
  --shell-without-bubblewrap
                        let shell.exec run where bubblewrap is missing or cannot run
                        (otherwise it is refused there). Unsafe against any other local
                        process that can write in the root: the path checks run before
                        the program opens the path, so a symlink swapped in between is
                        followed outside the root. Install bubblewrap instead:
                        apt-get install bubblewrap
  --log-content         write chat content into traces
  --stream-timeout-s S  longest a reply may take (default 30)
  --entropy-budget B    entropy a session may spend before RATE_LIMITED; it refills over 60 s
                        (default 0.10)
  --peer-entropy-budget B  (serve) entropy one peer address may spend across all its sessions
                        (default 5.0: fifty sessions' default budgets, for the users behind one
                        reverse proxy)
  --host H, --port N    (serve) where to listen (default 127.0.0.1, port 0 = any free)
  --ready-file F        (serve) written once listening: {"host","port","url"}; removed on exit
  --session-ttl-s S     (serve) idle seconds before a session is closed (default 1800)
  --allow-host NAME     (serve) another name the Host may carry (repeatable; loopback names
                        and the bound address are always allowed)
  --allow-origin O      (serve) pages of this origin (scheme://host[:port], e.g. a reverse
                        proxy's https://chat.example) may use the gateway too; otherwise only
                        its own origin, port included (repeatable)
  --no-auth             (serve) no token: anyone who can reach the port on this machine may use
                        every session and tool; accepted only on a loopback address
  --max-sessions N      (serve) sessions held at once (default 64)
  --max-connections N   (serve) open WebSockets at once (default 256)
  --max-connections-per-peer N  (serve) open WebSockets of one address (default 64)
  -h, --help            show this help

Environment: SYN_STATE_DIR, SYN_CHAT_KEY, SYN_CHAT_MEMORY_SCOPE, SYN_SERVER_TOKEN, the provider
keys and *_MODEL / *_ENDPOINT.

Examples:
  syn chat
  syn chat --state-dir ~/.syn --session work --root ./project
  echo "list the files" | syn chat --root ./project
  syn chat serve --port 8080 --state-dir ./.syn
`;

const OPTIONS = {
  session: { type: "string" },
  "state-dir": { type: "string" },
  root: { type: "string" },
  engine: { type: "string" },
  model: { type: "string" },
  endpoint: { type: "string" },
  grant: { type: "string", multiple: true },
  "shell-allow": { type: "string", multiple: true },
  "shell-without-bubblewrap": { type: "boolean" },
  "log-content": { type: "boolean" },
  "stream-timeout-s": { type: "string" },
  "entropy-budget": { type: "string" },
  "peer-entropy-budget": { type: "string" },
  host: { type: "string" },
  port: { type: "string" },
  "ready-file": { type: "string" },
  "session-ttl-s": { type: "string" },
  "allow-host": { type: "string", multiple: true },
  "allow-origin": { type: "string", multiple: true },
  "no-auth": { type: "boolean" },
  "max-sessions": { type: "string" },
  "max-connections": { type: "string" },
  "max-connections-per-peer": { type: "string" },
} as const;

type Values = ReturnType<typeof parseCommandArgs<typeof OPTIONS>>["values"];

export async function run(args: string[], io: CliIo): Promise<number> {
  const serve = args[0] === "serve";
  const { values, positionals } = parseCommandArgs(
    serve ? "chat serve" : "chat",
    serve ? args.slice(1) : args,
    OPTIONS,
  );
  if (values.help) {
    await io.stdout(help);
    return EXIT.ok;
  }
  if (positionals.length) {
    throw new UsageError(
      `unexpected argument: ${positionals[0]} (messages are read from standard input)`,
    );
  }
  const env = await chatEnvironment(values, io);
  return serve ? await serveGateway(values, env, io) : await repl(values, env, io);
}

async function chatEnvironment(values: Values, io: CliIo): Promise<ChatEnvironment> {
  const engine = (values.engine ?? "auto") as ChatEngine;
  if (!CHAT_ENGINES.includes(engine)) {
    throw new UsageError(`--engine must be one of ${CHAT_ENGINES.join(", ")}: ${values.engine}`);
  }
  const grants = values.grant ?? [];
  for (const cap of grants) {
    if (!isCapability(cap)) throw new UsageError(`--grant: not a capability: ${cap}`);
  }
  const config: ChatFluxConfig = {
    ...DEFAULT_CHAT_FLUX_CONFIG,
    stream_timeout:
      numberFlag("stream-timeout-s", values["stream-timeout-s"], { min: 0.1, max: 3600 }) ??
        DEFAULT_CHAT_FLUX_CONFIG.stream_timeout,
    entropy_budget: numberFlag("entropy-budget", values["entropy-budget"], { min: 0, max: 1000 }) ??
      DEFAULT_CHAT_FLUX_CONFIG.entropy_budget,
  };
  const stateDir = chosenStateDirectory(io, values["state-dir"]);
  const { root, temporary } = await chatRoot(values.root, io);
  let model;
  try {
    model = chatModel(engine, {
      config: io.config,
      model: values.model,
      endpoint: values.endpoint,
    });
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  const key = io.config.chat.key ?? (stateDir ? await chatKeyFile(io, stateDir) : undefined);
  return {
    model,
    config,
    stateDir,
    root,
    rootIsTemporary: temporary,
    logContent: values["log-content"] ?? false,
    grants,
    shellAllow: (values["shell-allow"] ?? []).flatMap((list) => list.split(",")).map((name) =>
      name.trim()
    ).filter(Boolean),
    shellWithoutBubblewrap: values["shell-without-bubblewrap"] ?? false,
    key,
    // One memory store per process, shared by every session (each takes its own view).
    memory: stateDir ? MemoryStore.open(stateDir, { key }) : undefined,
    memoryAcrossSessions: io.config.chat.memoryAcrossSessions,
    // Composites only from a state folder the user named: a cloned repository's ./.syn is not trusted.
    compositesDir: stateDir,
    secrets: io.config.secrets,
    toolRegistry: () => chatToolRegistry({ compositesDir: stateDir }, io.stderr),
  };
}

/**
 * Without `SYN_CHAT_KEY`, a state folder is still never written in plain text: the key made
 * once in the user's config folder is used (and said so when it is made).
 */
async function chatKeyFile(io: CliIo, stateDir: string): Promise<string> {
  let opened;
  try {
    opened = openChatKeyFile(io.config.system.configDir, { stateDir });
  } catch (error) {
    if (error instanceof SynError && error.code === "chat_key") {
      throw new UsageError(error.message);
    }
    throw error;
  }
  if (opened.created) {
    await io.stderr(
      `chat key made: ${opened.path} (mode 0600); it encrypts ${stateDir}: keep it, and move ` +
        "it with the state folder (docs/chat.md)\n",
    );
  }
  return opened.key;
}

function sessionIdFrom(values: Values): string {
  const id = values.session ?? `s-${crypto.randomUUID().slice(0, 8)}`;
  if (!SESSION_ID.test(id)) {
    throw new UsageError("--session takes 1–64 letters, digits, '-' or '_'");
  }
  return id;
}

// ---------------------------------------------------------------- REPL

async function repl(values: Values, env: ChatEnvironment, io: CliIo): Promise<number> {
  const id = sessionIdFrom(values);
  const session = await openChatSession(env, { id, agent: "kgent" });
  const say = (text: string) => io.stderr(`${text}\n`);
  await say(`syn chat — session ${id}, model ${pageEngine(env).label}`);
  if (env.rootIsTemporary) {
    await say(`tools work in a fresh temporary folder: ${env.root} (--root to choose one)`);
  }
  if (!env.stateDir) {
    await say("nothing is saved: give --state-dir (or SYN_STATE_DIR) to keep this session");
  } else if (session.checkpoint.recent_messages.length) {
    await say(`resumed: ${session.checkpoint.recent_messages.length} earlier messages`);
  }
  let current: string | undefined;
  // Ctrl-C stops the current reply, not the REPL.
  const stopListening = onStopSignals(() => {
    if (current && session.stop(current)) void say("\n(stopped)");
  }, ["SIGINT"]);
  const input = replInput(io, (stdin) => pipedLines(stdin, io));
  // The line editor draws its own prompt; a terminal without one gets "> " after each reply.
  const prompt = () => (io.stderrIsTerminal && !input.editing ? io.stderr("> ") : undefined);
  let closed: Promise<void> | undefined;
  const close = () =>
    closed ??= (async () => {
      stopListening();
      // A signal may end the session while the line editor holds the terminal raw.
      if (input.editing) io.terminal?.setRaw(false);
      await session.close().catch(() => {});
      env.memory?.close();
      await leaveRoot(env, say);
    })();
  // SIGTERM or a closed terminal (SIGHUP) ends the session as /quit does, then the process.
  const stopEnding = onEndSignals(close);
  // Said once every signal is handled: a caller that waits for it may signal at once.
  await say("type /help for commands, Ctrl-C stops a reply, /quit leaves");
  try {
    await prompt();
    for await (const line of input.lines) {
      const text = line.trim();
      if (!text) {
        await prompt();
        continue;
      }
      if (text.startsWith("/")) {
        if (await slashCommand(text, session, env, io)) break;
        await prompt();
        continue;
      }
      current = crypto.randomUUID();
      const result = session.start({ content: text, mode: "reflect", correlation_id: current });
      if (!(result instanceof ReplyBuffer)) {
        await say(
          `${result.code}: ${result.message}${
            result.retry_after_seconds ? ` (retry in ${result.retry_after_seconds} s)` : ""
          }`,
        );
        await prompt();
        continue;
      }
      await printReply(result, io);
      current = undefined;
      await prompt();
    }
  } finally {
    stopEnding();
    await close();
  }
  return EXIT.ok;
}

/** Streams a reply: visible text on stdout, tool activity and errors on stderr. */
async function printReply(reply: ReplyBuffer, io: CliIo): Promise<void> {
  let writes = Promise.resolve();
  const queue = (write: () => void | Promise<void>) => (writes = writes.then(write));
  const off = reply.subscribe((event: ChatEvent) => {
    const payload = event.payload;
    if (event.event_type === "chunk") {
      if (payload.tool_call) {
        const call = payload.tool_call as { tool: string; args: unknown };
        queue(() =>
          io.stderr(
            `  → ${neutralizeTerminalText(call.tool)} ${
              neutralizeTerminalText(compact(call.args))
            }\n`,
          )
        );
      } else if (payload.tool_result) {
        const result = payload.tool_result as {
          ok: boolean;
          tool: string;
          output: unknown;
          error: unknown;
        };
        queue(() =>
          io.stderr(
            `  ${result.ok ? "✓" : "✗"} ${neutralizeTerminalText(result.tool)} ${
              neutralizeTerminalText(compact(result.ok ? result.output : result.error))
            }\n`,
          )
        );
      } else if (payload.content) {
        queue(() => io.stdout(neutralizeTerminalText(String(payload.content))));
      }
    } else if (event.event_type === "error") {
      queue(() =>
        io.stderr(`\n[${payload.code}] ${neutralizeTerminalText(String(payload.message))}\n`)
      );
    } else if (event.event_type === "done") queue(() => io.stdout("\n"));
  });
  await reply.finished();
  off();
  await writes;
}

function compact(value: unknown): string {
  const text = JSON.stringify(value) ?? "null";
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}

/** The longest piped line sent as a message; a longer one is skipped, and said so. */
const MAX_INPUT_LINE_BYTES = 256 * 1024;

/** The lines of piped input; a line past the cap is reported on stderr, not sent. */
async function* pipedLines(stdin: CliIo["stdin"], io: CliIo): AsyncGenerator<string> {
  for await (const read of readLines(stdin, { maxLineBytes: MAX_INPUT_LINE_BYTES })) {
    if (read.kind === "line") yield read.text;
    else if (read.kind === "oversize") {
      await io.stderr(
        `skipped a line of ${formatBytes(read.bytes)}: the limit is ${
          formatBytes(MAX_INPUT_LINE_BYTES)
        }\n`,
      );
    }
  }
}

/** Runs a slash command; true when the REPL should end. */
async function slashCommand(
  text: string,
  session: ChatSession,
  env: ChatEnvironment,
  io: CliIo,
): Promise<boolean> {
  const [command, ...rest] = text.split(/\s+/);
  const argument = rest.join(" ");
  const say = (line: string) => io.stderr(`${line}\n`);
  switch (command) {
    case "/quit":
    case "/exit":
      return true;
    case "/help":
      await say(help.split("Commands in the REPL:\n")[1].split("\n\n")[0]);
      return false;
    case "/tools": {
      for (const tool of (await chatToolRegistry(env)).list()) {
        await say(`  ${tool.name}: ${tool.description}`);
      }
      return false;
    }
    case "/grant":
    case "/revoke": {
      if (!isCapability(argument)) {
        await say(`usage: ${command} net | net:<host>`);
        return false;
      }
      await session.setCapability(argument, command === "/grant");
      await say(`${command === "/grant" ? "granted" : "revoked"}: ${argument}`);
      return false;
    }
    case "/state": {
      const state = session.checkpoint.state;
      await say(neutralizeTerminalText(JSON.stringify(state, null, 2)));
      return false;
    }
    case "/checkpoint":
      if (!env.stateDir) await say("no --state-dir: nothing is saved");
      else await say(`checkpoint written: revision ${await session.checkpointNow()}`);
      return false;
    case "/condense":
      await session.condenseNow();
      await say(`condensed: ${session.checkpoint.recent_messages.length} recent messages kept`);
      return false;
    case "/memory": {
      if (!env.memory) {
        await say("no --state-dir: there is no memory to search");
        return false;
      }
      using view = env.memory.session(session.id, { acrossSessions: env.memoryAcrossSessions });
      const hits = view.search(argument, 5);
      if (!hits.length) await say("nothing found");
      for (const hit of hits) {
        await say(`  ${hit.id} (${hit.score.toFixed(3)}) ${neutralizeTerminalText(hit.excerpt)}`);
      }
      return false;
    }
    default:
      await say(
        `unknown command: ${neutralizeTerminalText(command.slice(0, 40))} (/help lists them)`,
      );
      return false;
  }
}

// ---------------------------------------------------------------- gateway

/** The engine the REPL's banner and the chat page name. */
function pageEngine(env: ChatEnvironment) {
  const offline = env.model.provider === "mock";
  return {
    offline,
    label: offline ? "template (offline)" : `${env.model.provider} ${env.model.model}`,
  };
}

async function serveGateway(values: Values, env: ChatEnvironment, io: CliIo): Promise<number> {
  const host = values.host ?? "127.0.0.1";
  const port = numberFlag("port", values.port, { integer: true, min: 0, max: 65535 }) ?? 0;
  const token = serverToken(values, host, io);
  const log = (line: string) => void io.stderr(`${line}\n`);
  const gateway = new ChatGateway({
    engine: pageEngine(env),
    config: env.config,
    persistent: env.stateDir !== undefined,
    sessionTtlSeconds:
      numberFlag("session-ttl-s", values["session-ttl-s"], { min: 1, max: 7 * 86400 }) ?? 1800,
    maxSessions: countFlag(values, "max-sessions"),
    maxSockets: countFlag(values, "max-connections"),
    maxSocketsPerPeer: countFlag(values, "max-connections-per-peer"),
    peerEntropyBudget: numberFlag("peer-entropy-budget", values["peer-entropy-budget"], {
      min: 0,
      max: 100_000,
    }),
    openSession: (id, agent) => openChatSession(env, { id, agent }),
    log,
  });
  const stopping = new AbortController();
  const served = serveLocal({
    hostname: host,
    port,
    signal: stopping.signal,
    token,
    allowHosts: values["allow-host"],
    allowOrigins: (values["allow-origin"] ?? []).map(parseAllowedOrigin),
    onListenerError: (error) =>
      log(`chat:listener_error ${neutralizeTerminalText(errorMessage(error))}; listening again`),
  }, gateway.handle);
  const { addr } = served.server;
  const url = token === undefined ? served.url : `${served.url}?token=${token}`;
  const readyFile = values["ready-file"] ? resolvePath(io.cwd, values["ready-file"]) : undefined;
  if (readyFile) await writeReadyFile(readyFile, { host: addr.hostname, port: addr.port, url });
  if (token === undefined) {
    log(
      `chat:no_auth anyone who can reach ${served.url} on this machine can use every session and tool`,
    );
  }
  log(
    `chat:ready url=${url} engine=${
      env.model.provider === "mock" ? "template" : env.model.provider
    } state_dir=${env.stateDir ?? "(none: nothing is saved)"} root=${env.root}`,
  );
  const stopListening = onStopSignals(() => stopping.abort(), [...STOP_SIGNALS, "SIGHUP"]);
  await served.server.finished;
  await gateway.close();
  env.memory?.close();
  if (readyFile) await Deno.remove(readyFile).catch(() => {});
  stopListening();
  await leaveRoot(env, log);
  log("chat:stopped");
  return EXIT.ok;
}

/** The gateway's bearer token, by the rule every server shares (`chooseServerToken`). */
function serverToken(values: Values, host: string, io: CliIo): string | undefined {
  const noAuth = values["no-auth"] ?? false;
  return chooseServerToken({ hostname: host, noAuth, given: io.config.serverToken }).token;
}

function countFlag(
  values: Values,
  name: "max-sessions" | "max-connections" | "max-connections-per-peer",
) {
  return numberFlag(name, values[name], { integer: true, min: 1, max: 100_000 });
}

/**
 * The ready file holds the token: written to a new 0600 file beside it and renamed over
 * the path, so the token is never in a file someone else can read, not even for a moment
 * (an older file's mode is not reused), and a symlink at the path is replaced, not followed.
 */
async function writeReadyFile(path: string, ready: { host: string; port: number; url: string }) {
  await writeFileAtomic(path, `${JSON.stringify(ready)}\n`, { mode: 0o600 });
}
