/**
 * `syn mcp-serve` as a real process whose every tool call first waits `<delay-ms>`:
 *   deno run -A tests/fakes/delayed_mcp_serve.ts <delay-ms> [mcp-serve flags…]
 * The delay is injected here, so production code reads no test switch.
 */
import { realIo } from "../../main.ts";
import { runMcpServe } from "../../lib/cli/mcp_serve.ts";

const [delay, ...args] = Deno.args;
Deno.exit(await runMcpServe(args, realIo(), { delayMs: Number(delay) }));
