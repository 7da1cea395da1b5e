/**
 * A stateful MCP server on stdio with the traps real agent benchmarks hold, as an upstream
 * for loop tests: `deno run -A tests/fakes/fake_vehicle_mcp.ts [--jitter-ms N] [--state-out F]`.
 * Each process starts from the same state, like one BFCL scenario.
 *
 * - Hidden order: `lock_doors`, `press_brake` and `start_engine` pass no value between them,
 *   yet the engine starts only when the doors are locked and the brake pressed first.
 * - A counter that is the same in every session: `place_order` hands out 12446, 12447, …
 *   and `order_status {order_id}` reads one back (a value every sample shares is not
 *   necessarily a constant of the task).
 * - A credential argument: `send_message {to, text, token}`.
 * - Read-only tools annotated so: `get_status`, `order_status`, `get_zipcode {city}`,
 *   `distance {from_zip, to_zip}`.
 * `--jitter-ms N` answers each call after a random 0–N ms pause, so concurrent calls may be
 * served out of order. `--state-out F` keeps the state as JSON in F, written after every call.
 */
import { fromJsonSchema, McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";

const flag = (name: string) => {
  const at = Deno.args.indexOf(name);
  return at < 0 ? undefined : Deno.args[at + 1];
};
const jitterMs = Number(flag("--jitter-ms") ?? 0);
const stateOut = flag("--state-out");

const state = {
  locked: false,
  brake: false,
  engine: false,
  next_order: 12446,
  orders: {} as Record<string, string>,
  sent: [] as string[],
};
const ZIPS: Record<string, string> = { Rivermist: "83214", Stonebrook: "74532", Oakridge: "30211" };

const object = (properties: Record<string, unknown>, required: string[]) =>
  fromJsonSchema<Record<string, unknown>>(
    { type: "object", properties, required } as Parameters<typeof fromJsonSchema>[0],
  );
const answer = async (value: Record<string, unknown>) => {
  // The state as it is after the call, on disk before the answer leaves.
  if (stateOut) Deno.writeTextFileSync(stateOut, JSON.stringify(state));
  if (jitterMs > 0) await new Promise((r) => setTimeout(r, Math.random() * jitterMs));
  return { content: [{ type: "text" as const, text: JSON.stringify(value) }] };
};
const WRITE = { readOnlyHint: false, destructiveHint: false };
const READ = { readOnlyHint: true };

const server = new McpServer({ name: "fake-vehicle", version: "1.0.0" }, {
  capabilities: { tools: {} },
});
const none = object({}, []);
server.registerTool("lock_doors", { inputSchema: none, annotations: WRITE }, async () => {
  state.locked = true;
  return await answer({ lockStatus: "locked" });
});
server.registerTool("press_brake", { inputSchema: none, annotations: WRITE }, async () => {
  state.brake = true;
  return await answer({ brakePedalStatus: "pressed" });
});
server.registerTool("start_engine", { inputSchema: none, annotations: WRITE }, async () => {
  // Decided when the call arrives, before the pause: the order of arrival is what counts.
  state.engine = state.locked && state.brake;
  return await answer({ engineState: state.engine ? "running" : "stopped" });
});
server.registerTool(
  "get_status",
  { inputSchema: none, annotations: READ },
  async () => await answer({ locked: state.locked, brake: state.brake, engine: state.engine }),
);
server.registerTool(
  "place_order",
  { inputSchema: object({ item: { type: "string" } }, ["item"]), annotations: WRITE },
  async ({ item }) => {
    const id = state.next_order++;
    state.orders[String(id)] = String(item);
    return await answer({ order_id: id });
  },
);
server.registerTool(
  "order_status",
  { inputSchema: object({ order_id: { type: "number" } }, ["order_id"]), annotations: READ },
  async ({ order_id }) => await answer({ order_id, item: state.orders[String(order_id)] ?? null }),
);
server.registerTool(
  "send_message",
  {
    inputSchema: object({
      to: { type: "string" },
      text: { type: "string" },
      token: { type: "string" },
    }, ["to", "text", "token"]),
    annotations: WRITE,
  },
  async ({ to, text, token }) => {
    const ok = typeof token === "string" && token.startsWith("tok-");
    if (ok) state.sent.push(`${to}:${text}`);
    return await answer({ sent: ok });
  },
);
server.registerTool(
  "get_zipcode",
  { inputSchema: object({ city: { type: "string" } }, ["city"]), annotations: READ },
  async ({ city }) => await answer({ zipcode: ZIPS[String(city)] ?? "00000" }),
);
server.registerTool(
  "distance",
  {
    inputSchema: object({ from_zip: { type: "string" }, to_zip: { type: "string" } }, [
      "from_zip",
      "to_zip",
    ]),
    annotations: READ,
  },
  async ({ from_zip, to_zip }) =>
    await answer({ distance: Math.abs(Number(from_zip) - Number(to_zip)) % 997 }),
);

await server.connect(new StdioServerTransport());
