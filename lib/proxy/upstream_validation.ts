/**
 * Validation by execution against a live MCP server: the composite's steps and the
 * recorded calls run as `tools/call`s to the upstream. Only a chain whose every tool the
 * upstream marks read-only is executed — the validator never writes through someone
 * else's server; a chain with a write step stays replay-only, and the refusal says why.
 */
import type { ExecutionTarget } from "../synthesize/mod.ts";
import { summarizeOutput } from "./call_result.ts";
import {
  closeUpstream,
  connectUpstream,
  describeUpstream,
  listAllTools,
  type UpstreamTarget,
} from "./upstream.ts";
import { isReadOnly, upstreamStepExecutor } from "./upstream_composites.ts";

/** An open upstream for validation: the execution target, or why there is none. */
export interface UpstreamValidation extends AsyncDisposable {
  target?: ExecutionTarget;
  refusal?: string;
}

/** Connects to the upstream and decides whether the chain may be executed there. */
export async function openUpstreamValidation(
  upstream: UpstreamTarget,
  chain: readonly string[],
): Promise<UpstreamValidation> {
  const client = await connectUpstream(upstream);
  const close = () => closeUpstream(client);
  try {
    const tools = new Map((await listAllTools(client)).map((tool) => [tool.name, tool]));
    const missing = chain.filter((name) => !tools.has(name));
    const writes = chain.filter((name) => tools.has(name) && !isReadOnly(tools.get(name)));
    const where = describeUpstream(upstream);
    const refusal = missing.length
      ? `${where} does not list ${[...new Set(missing)].join(", ")}: replay only`
      : writes.length
      ? `${[...new Set(writes)].join(", ")} not annotated readOnlyHint: true by ${where}: ` +
        "a chain with a write step is never executed, replay only"
      : undefined;
    if (refusal) return { refusal, [Symbol.asyncDispose]: close };
    const target: ExecutionTarget = {
      execute: upstreamStepExecutor(client),
      summarize: summarizeOutput,
      where: `against ${where}`,
      rerunOriginals: true,
    };
    return { target, [Symbol.asyncDispose]: close };
  } catch (error) {
    await close();
    throw error;
  }
}
