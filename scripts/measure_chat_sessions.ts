/**
 * What `syn chat serve` holds per session, and what it gives back when sessions expire.
 *
 *   deno run -A scripts/measure_chat_sessions.ts [--sessions 60] [--ttl-s 2] [--rounds 2]
 *
 * Starts `syn chat serve --state-dir … --session-ttl-s S` as a child, its model a mock
 * OpenAI server (the real wire) that asks for one `fs.list_dir` per message; opens the
 * sessions one after another (one message each, its tool call run in the session's
 * sandbox), then closes every socket and waits for the sessions to expire; again for each
 * round, with new session ids. Prints the child's VmRSS, threads and descriptors
 * (`/proc/<pid>`, Linux) before, with the sessions open, and after expiry: a second round
 * that ends where the first did shows memory reused, not leaked.
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { TestSocket } from "../tests/fakes/chat_gateway.ts";
import {
  type ProcessFigures,
  processFigures,
  type ServedChat,
  startChatServe,
} from "../tests/fakes/chat_serve_child.ts";
import { startMockLlmServer } from "../tests/fakes/mock_llm_server.ts";

const TOOL_CALL = 'Looking. <<<TOOL_CALLS_JSON>>>[{"id":"t1","tool":"fs.list_dir","args":' +
  '{"path":"."}}]<<<END_TOOL_CALLS_JSON>>>';

/** Opens `count` sessions, each running one tool call; returns their sockets. */
async function openSessions(
  served: ServedChat,
  count: number,
  prefix: string,
): Promise<TestSocket[]> {
  const sockets: TestSocket[] = [];
  for (let i = 0; i < count; i++) {
    const socket = await TestSocket.open(
      `${served.wsUrl}/chat/kgent?session=${prefix}${i}&token=${served.token}`,
    );
    socket.message("what is in the folder?", "c1");
    await socket.done("c1", 60_000);
    if (!socket.events.some((event) => event.payload.tool_result)) {
      throw new Error(`session ${i} ran no tool: ${JSON.stringify(socket.events).slice(0, 400)}`);
    }
    sockets.push(socket);
  }
  return sockets;
}

/** Waits (at most `ms`) until the server has logged `count` expiries and settled. */
async function expired(served: ServedChat, count: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while ((served.log().match(/chat:expired /g) ?? []).length < count) {
    if (Date.now() > deadline) throw new Error(`sessions did not expire:\n${served.log()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  // Closing a session releases its worker and stores asynchronously, and the runtime keeps
  // idle blocking-pool threads for a while: let both settle.
  await new Promise((resolve) => setTimeout(resolve, 12_000));
}

function row(label: string, figures: ProcessFigures): string {
  const rss = `${(figures.rssKib / 1024).toFixed(0)} MB`.padStart(8);
  return `| ${label.padEnd(26)} | ${rss} | ${String(figures.threads).padStart(7)} | ${
    String(figures.descriptors).padStart(11)
  } |`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      sessions: { type: "string", default: "60" },
      "ttl-s": { type: "string", default: "2" },
      rounds: { type: "string", default: "2" },
    },
  });
  const count = Number(values.sessions);
  await using llm = await startMockLlmServer({
    answer: (context) =>
      context.prompt.startsWith("TOOL_RESULTS") ? "The folder has one file." : TOOL_CALL,
  });
  const state = await Deno.makeTempDir({ prefix: "syn-measure-state-" });
  const limit = String(count + 4);
  await using served = await startChatServe([
    ...["--engine", "openai", "--state-dir", state, "--session-ttl-s", values["ttl-s"]!],
    ...["--entropy-budget", "1000"],
    ...["--max-sessions", limit, "--max-connections", limit, "--max-connections-per-peer", limit],
  ], { OPENAI_API_KEY: "sk-measure-0000000000000000", OPENAI_ENDPOINT: llm.openaiUrl });
  await Deno.writeTextFile(join(served.root, "notes.md"), "water the plants\n");
  const pid = served.child.pid;
  const rows = [row("before", processFigures(pid))];
  let perSession = "";
  for (let round = 1; round <= Number(values.rounds); round++) {
    const before = processFigures(pid);
    const sockets = await openSessions(served, count, `r${round}s`);
    const open = processFigures(pid);
    for (const socket of sockets) await socket.close();
    await expired(served, count * round, 120_000);
    rows.push(row(`round ${round}: ${count} open`, open));
    rows.push(row(`round ${round}: expired`, processFigures(pid)));
    const per = (key: keyof ProcessFigures) => ((open[key] - before[key]) / count).toFixed(1);
    perSession ||= `per open session (round 1): ${per("rssKib")} KiB RSS, ${per("threads")} ` +
      `threads, ${per("descriptors")} descriptors`;
  }
  console.log(
    `syn chat serve, ${count} sessions with one fs.list_dir each (Deno ${Deno.version.deno})\n`,
  );
  console.log("| when                       |      RSS | threads | descriptors |");
  console.log("| -------------------------- | -------- | ------- | ----------- |");
  for (const line of rows) console.log(line);
  console.log(`\n${perSession}`);
  await Deno.remove(state, { recursive: true });
}

if (import.meta.main) await main();
