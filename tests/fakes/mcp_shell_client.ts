/**
 * An MCP client as a shell pipe drives a stdio server: every line written at once, then
 * standard input closed, then standard output read to the end (`printf '%s\n' … | syn …`).
 */
import { runSyn } from "./cli_io.ts";

/** A `tools/call` a pipe sends. */
export interface PipedCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** What a server answered a pipe, by request id, and what it printed on stderr. */
export interface PipedSession {
  code: number;
  /** The responses on stdout, by id (0 is `initialize`, the calls from 1 in order). */
  answers: Map<number, Record<string, unknown>>;
  stdout: string;
  stderr: string;
}

/** The lines: `initialize` (id 0), `notifications/initialized`, then each call (ids 1…). */
export function pipedLines(calls: readonly PipedCall[]): string {
  const lines: unknown[] = [
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "shell", version: "1.0.0" },
      },
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    ...calls.map((call, index) => ({
      jsonrpc: "2.0",
      id: index + 1,
      method: "tools/call",
      params: call,
    })),
  ];
  return lines.map((line) => JSON.stringify(line) + "\n").join("");
}

/** Runs `syn …args` with the lines of `calls` as its whole input; reads it to the end. */
export async function pipeToSyn(
  args: string[],
  calls: readonly PipedCall[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): Promise<PipedSession> {
  const run = await runSyn(args, { ...options, stdin: pipedLines(calls) });
  const answers = new Map<number, Record<string, unknown>>();
  for (const line of run.stdout.split("\n")) {
    if (!line.trim()) continue;
    const message = JSON.parse(line) as Record<string, unknown>;
    if (typeof message.id === "number") answers.set(message.id, message);
  }
  return { ...run, answers };
}
