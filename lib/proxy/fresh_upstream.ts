/**
 * Fresh upstreams for validation: each world is a newly started copy of the MCP server a
 * recorded session ran against (the command line its origin recorded, or the one the user
 * gives), so a chain that writes is executed only in a world of its own — never against a
 * shared live server. Each world is closed (its input closed, a bounded grace, then the
 * process ended) when its session is done.
 */
import { REDACTED } from "../core/mod.ts";
import type { FreshWorlds, SessionOrigin, World } from "../synthesize/mod.ts";
import { summarizeOutput } from "./call_result.ts";
import { closeUpstream, connectUpstream, listAllTools, type UpstreamTarget } from "./upstream.ts";
import { isReadOnly, upstreamStepExecutor } from "./upstream_composites.ts";

/** What fresh upstreams are started from. */
export interface FreshUpstreamOptions {
  /** Each recorded session's origin, by session id. */
  origins: ReadonlyMap<string, SessionOrigin>;
  /** The command given after `--`: used for every session instead of its recorded one. */
  command?: readonly string[];
  /** The folder a given command starts in (a recorded one starts where it was recorded). */
  cwd: string;
  /** The environment each upstream gets (never recorded: secrets live there). */
  env?: Record<string, string>;
  /** Told each upstream that is started, for the operator. */
  onStart?: (sessionId: string, command: readonly string[]) => void;
}

/** The stdio target a session's world is started from, or why there is none. */
export function freshTarget(
  sessionId: string,
  options: FreshUpstreamOptions,
): Extract<UpstreamTarget, { kind: "stdio" }> {
  if (options.command?.length) {
    const [command, ...args] = options.command;
    return { kind: "stdio", command, args, cwd: options.cwd, env: options.env };
  }
  const origin = options.origins.get(sessionId);
  if (!origin) {
    throw new Error(
      `session ${sessionId} has no recorded upstream: give the command after --fresh-upstream -- …`,
    );
  }
  if (origin.upstream.transport !== "stdio") {
    throw new Error(
      `session ${sessionId} ran against ${origin.upstream.url}, a shared server: ` +
        "give a command that starts a fresh one after --fresh-upstream -- …",
    );
  }
  if (origin.upstream.command.some((word) => word.includes(REDACTED))) {
    throw new Error(
      `session ${sessionId}'s command line held a secret, which was not recorded: ` +
        "give the command after --fresh-upstream -- …",
    );
  }
  const [command, ...args] = origin.upstream.command;
  return {
    kind: "stdio",
    command,
    args,
    cwd: origin.upstream.cwd ?? options.cwd,
    env: options.env,
  };
}

/** Fresh worlds on fresh upstream processes (see the module comment). */
export function freshUpstreamWorlds(options: FreshUpstreamOptions): FreshWorlds {
  let readOnly: Set<string> | undefined;
  const where = options.command?.length
    ? `in fresh upstreams (${options.command[0]})`
    : "in fresh upstreams started as recorded";
  return {
    where,
    summarize: summarizeOutput,
    readOnly: (tool) => readOnly?.has(tool) ?? false,
    async open(sessionId): Promise<World> {
      const target = freshTarget(sessionId, options);
      options.onStart?.(sessionId, [target.command, ...target.args]);
      // The upstream's stderr is kept only to explain a failed start (connectUpstream).
      const client = await connectUpstream(target, { stderrLine: () => {} });
      try {
        const tools = (await listAllTools(client)).filter(isReadOnly).map((tool) => tool.name);
        // A tool counts as read-only only if every fresh upstream says so.
        readOnly = readOnly ? new Set(tools.filter((tool) => readOnly!.has(tool))) : new Set(tools);
      } catch (error) {
        await closeUpstream(client).catch(() => {});
        throw error;
      }
      return {
        execute: upstreamStepExecutor(client),
        async [Symbol.asyncDispose]() {
          await closeUpstream(client).catch(() => {});
        },
      };
    },
  };
}
