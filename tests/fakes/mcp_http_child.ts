/**
 * `syn mcp-serve --http …` (or `syn mcp-proxy --http …`) as a real subprocess for the HTTP
 * tests: a cleared environment, a private ready file, the ready line parsed, stderr kept
 * for failure messages.
 */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { childEnv, killAfter } from "./child_env.ts";
import { SELF_COMMAND } from "./cli_io.ts";

/** A running `mcp-serve --http` (or `mcp-proxy --http`) child. */
export interface HttpChild {
  child: Deno.ChildProcess;
  /** The MCP endpoint from the ready line. */
  url: string;
  /** The token from the ready line (`undefined` with `--no-auth`). */
  token: string | undefined;
  readyFile: string;
  /** Writes to the child's standard input (for `--stdio` alongside `--http`). */
  stdin: WritableStreamDefaultWriter<Uint8Array>;
  stdout: ReadableStream<Uint8Array>;
  stderr(): string;
  /** Sends `signal` (SIGTERM by default) and resolves to the exit status. */
  stop(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
}

const READY = /mcp:ready mode=http url=(\S+)(?: token=(\S+))?/;

/**
 * Spawns `main.ts mcp-serve <args>` (or `options.command`) and waits (60 s at most) for its
 * HTTP ready line. `delayMs` makes every tool call wait first (the hook of
 * `delayed_mcp_serve.ts`).
 */
export async function spawnHttpServer(
  args: string[],
  options: {
    env?: Record<string, string>;
    delayMs?: number;
    command?: "mcp-serve" | "mcp-proxy";
  } = {},
): Promise<HttpChild> {
  const command = options.command ?? "mcp-serve";
  const dir = await Deno.makeTempDir({ prefix: "syn_mcp_http_" });
  const readyFile = `${dir}/ready`;
  const entry = options.delayMs === undefined ? [...SELF_COMMAND.slice(1), command] : [
    "run",
    "-A",
    fileURLToPath(new URL("./delayed_mcp_serve.ts", import.meta.url)),
    String(options.delayMs),
  ];
  const child = new Deno.Command(SELF_COMMAND[0], {
    args: [...entry, ...args],
    clearEnv: true,
    env: childEnv({ MCP_READY_FILE: readyFile, ...options.env }),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const cancelKill = killAfter(child);
  let errText = "";
  const decoder = new TextDecoder();
  const errDone = (async () => {
    for await (const chunk of child.stderr) errText += decoder.decode(chunk, { stream: true });
  })();
  const stdin = child.stdin.getWriter();
  let stopping: Promise<Deno.CommandStatus> | undefined;
  const stop = (signal: Deno.Signal = "SIGTERM") => {
    stopping ??= (async () => {
      try {
        child.kill(signal);
      } catch {
        // already gone
      }
      const status = await child.status;
      cancelKill();
      await stdin.close().catch(() => {});
      await child.stdout.cancel().catch(() => {});
      await errDone;
      await Deno.remove(dir, { recursive: true }).catch(() => {});
      return status;
    })();
    return stopping;
  };
  const deadline = Date.now() + 60_000;
  let match: RegExpExecArray | null;
  while (!(match = READY.exec(errText))) {
    const exited = await Promise.race([
      child.status.then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), 20)),
    ]);
    if (exited || Date.now() > deadline) {
      await stop("SIGKILL");
      throw new Error(`${command} ${args.join(" ")} never got ready; stderr:\n${errText}`);
    }
  }
  return {
    child,
    url: match[1],
    token: match[2],
    readyFile,
    stdin,
    stdout: child.stdout,
    stderr: () => errText,
    stop,
  };
}

/** An official SDK client over Streamable HTTP, sending the token as `Authorization: Bearer`. */
export async function connectHttpClient(
  url: string,
  token: string | undefined,
  options: { modern?: boolean } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers },
  });
  const client = new Client(
    { name: "syn-http-test", version: "1.0.0" },
    options.modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(transport);
  return { client, transport };
}
