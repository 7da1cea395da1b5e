/**
 * The smallest MCP server over stdio, with no imports (it starts in a few milliseconds): one
 * read-only tool, `echo`, that answers its `text` at once. Used to count the processes the
 * proxy leaves behind and as the cheap tool of the proxy benchmark.
 *
 *   deno run --allow-write tiny_mcp_upstream.ts [--pid-file FILE] [--last-write FILE --last-write-delay-ms N]
 *
 * `--pid-file` appends this process's id to FILE at start. `--last-write` makes it, once its
 * input ends, wait N ms and then append "last write" to FILE before exiting — as a server
 * that saves its state on the way out. A call of the tool `exit` ends the process at once,
 * unanswered — as a server that crashes.
 */
const args = Deno.args;
const option = (name: string) => {
  const index = args.indexOf(name);
  return index < 0 ? undefined : args[index + 1];
};
const encoder = new TextEncoder();
const pidFile = option("--pid-file");
if (pidFile) Deno.writeTextFileSync(pidFile, `${Deno.pid}\n`, { append: true });

const TOOL = {
  name: "echo",
  description: "Answers its text",
  inputSchema: { type: "object", properties: { text: { type: "string" } } },
  annotations: { readOnlyHint: true },
};

function answer(message: { id?: unknown; method?: string; params?: Record<string, unknown> }) {
  switch (message.method) {
    case "initialize":
      return {
        protocolVersion: (message.params?.protocolVersion as string) ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "tiny-upstream", version: "1.0.0" },
      };
    case "ping":
      return {};
    case "tools/list":
      return { tools: [TOOL] };
    case "tools/call": {
      const text = String((message.params?.arguments as { text?: unknown })?.text ?? "");
      return { content: [{ type: "text", text }] };
    }
  }
  return undefined;
}

function write(value: unknown): void {
  const bytes = encoder.encode(`${JSON.stringify(value)}\n`);
  let written = 0;
  while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
}

const decoder = new TextDecoder();
let pending = "";
for await (const chunk of Deno.stdin.readable) {
  pending += decoder.decode(chunk, { stream: true });
  let end: number;
  while ((end = pending.indexOf("\n")) >= 0) {
    const line = pending.slice(0, end).trim();
    pending = pending.slice(end + 1);
    if (!line) continue;
    const message = JSON.parse(line);
    if (message.id === undefined || message.method === undefined) continue;
    if (message.method === "tools/call" && message.params?.name === "exit") Deno.exit(3);
    const result = answer(message);
    write(
      result === undefined
        ? { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } }
        : { jsonrpc: "2.0", id: message.id, result },
    );
  }
}

const lastWrite = option("--last-write");
if (lastWrite) {
  await new Promise((resolve) => setTimeout(resolve, Number(option("--last-write-delay-ms") ?? 0)));
  Deno.writeTextFileSync(lastWrite, "last write\n", { append: true });
}
