/**
 * A small MCP server written with the official SDK, run on stdio as an upstream for
 * `syn mcp-proxy` tests: `deno run -A tests/fakes/fake_mcp_records.ts <data.json>`.
 *
 * Its data file is read again on every call, so a test can change what the tools answer
 * between recording and validation:
 *   {"records": {"<name>": {"id": "...", "owner": "..."}}, "bodies": {"<id>": "..."}}
 *
 * Tools: `find_record {name}` → `{id, owner}` and `get_record {id}` → `{id, body}` (both
 * read-only), `append_note {text}` (a write), `count_slowly {steps}` (a progress
 * notification per step, 100 ms apart; answers how far it got) and `broken` (isError).
 * A resource `records://all` and a prompt
 * `summarize {name}` show that the rest passes through.
 */
import { fromJsonSchema, McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";

const dataFile = Deno.args[0];
const data = () =>
  JSON.parse(Deno.readTextFileSync(dataFile)) as {
    records: Record<string, { id: string; owner: string }>;
    bodies: Record<string, string>;
  };
const object = (properties: Record<string, unknown>, required: string[]) =>
  fromJsonSchema<Record<string, unknown>>(
    { type: "object", properties, required } as Parameters<typeof fromJsonSchema>[0],
  );
const text = (value: string, isError = false) => ({
  content: [{ type: "text" as const, text: value }],
  ...(isError ? { isError: true } : {}),
});

const server = new McpServer({ name: "fake-records", version: "1.0.0" }, {
  capabilities: { tools: {}, resources: {}, prompts: {} },
  instructions: "Records by name.",
});
server.registerTool("find_record", {
  description: "Finds a record by name",
  inputSchema: object({ name: { type: "string" } }, ["name"]),
  annotations: { readOnlyHint: true, openWorldHint: false },
}, ({ name }) => {
  const record = data().records[String(name)];
  if (!record) return text(`no record ${name}`, true);
  return { ...text(JSON.stringify(record)), structuredContent: record };
});
server.registerTool("get_record", {
  description: "Reads a record's body by id",
  inputSchema: object({ id: { type: "string" } }, ["id"]),
  annotations: { readOnlyHint: true, openWorldHint: false },
}, ({ id }) => {
  const body = data().bodies[String(id)];
  if (body === undefined) return text(`no body ${id}`, true);
  const result = { id: String(id), body };
  return { ...text(JSON.stringify(result)), structuredContent: result };
});
server.registerTool("append_note", {
  description: "Appends a note (a write)",
  inputSchema: object({ text: { type: "string" } }, ["text"]),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
}, ({ text: note }) => text(`noted ${note}`));
server.registerTool("count_slowly", {
  description: "Counts with progress",
  inputSchema: object({ steps: { type: "number" } }, ["steps"]),
  annotations: { readOnlyHint: true },
}, async ({ steps }, ctx) => {
  const token = ctx.mcpReq._meta?.progressToken;
  let done = 0;
  for (; done < Number(steps); done++) {
    if (ctx.mcpReq.signal.aborted) break;
    if (token !== undefined) {
      await ctx.mcpReq.notify({
        method: "notifications/progress",
        params: { progressToken: token, progress: done + 1, total: Number(steps) },
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return text(`counted ${done}`);
});
server.registerTool("broken", {
  description: "Always fails as a tool",
  inputSchema: object({}, []),
}, () => text("it broke", true));
server.registerResource("all", "records://all", { mimeType: "application/json" }, (uri) => ({
  contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(data()) }],
}));
server.registerPrompt("summarize", {
  description: "Summarize a record",
  argsSchema: object({ name: { type: "string" } }, ["name"]),
}, ({ name }) => ({
  messages: [{
    role: "user" as const,
    content: { type: "text" as const, text: `Summarize ${name}` },
  }],
}));
await server.connect(new StdioServerTransport());
