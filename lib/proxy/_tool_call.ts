import type { CallToolRequest, CallToolResult, ServerContext } from "@modelcontextprotocol/server";
import type { Client } from "@modelcontextprotocol/client";
import { errorMessage } from "../core/mod.ts";
import type { RecordedCall, UpstreamOrigin } from "../synthesize/mod.ts";
import { errorOutcome, recordedOutput, resultOutcome } from "./call_result.ts";
import type { ProxyState } from "./_proxy_state.ts";
import { callComposite } from "./upstream_composites.ts";
import type { UpstreamTarget } from "./upstream.ts";

/**
 * How an upstream was started, as a session's origin records it: a command line and its
 * folder (never its environment, where secrets live), or a URL (never its headers).
 */
export function upstreamOriginOf(target: UpstreamTarget): UpstreamOrigin {
  return target.kind === "stdio"
    ? {
      transport: "stdio",
      command: [target.command, ...target.args],
      ...(target.cwd !== undefined ? { cwd: target.cwd } : {}),
    }
    : { transport: "http", url: target.url };
}

/**
 * What a recorded call carries of its session's origin (how the upstream was started, its
 * read-only tools), on the fast path and the SDK's path alike.
 */
export function callOrigin(state: ProxyState): Pick<RecordedCall, "origin"> {
  return state.upstreamOrigin
    ? {
      origin: {
        upstream: state.upstreamOrigin,
        readOnlyTools: state.readOnlyTools,
      },
    }
    : {};
}

/** The deadline of one composite call through the proxy. */
export const COMPOSITE_DEADLINE_MS = 120_000;

/**
 * One `tools/call` from the client: forwarded to the upstream, or run as a composite;
 * recorded either way. The client sees exactly what the upstream answered (a JSON-RPC
 * error is thrown on as it came); recording happens after and cannot change it.
 */
export async function serveToolCall(
  state: ProxyState,
  params: CallToolRequest["params"],
  ctx: ServerContext,
): Promise<CallToolResult> {
  state.inFlight.count++;
  const started = state.now();
  const args = params.arguments ?? {};
  const record = (outcome: RecordedCall["outcome"], output: RecordedCall["output"]) =>
    state.recorder.record({
      tool: params.name,
      args,
      output,
      outcome,
      latencyMs: state.now() - started,
      startedMs: started,
      sessionId: ctx.sessionId ?? state.sessionId,
      ...callOrigin(state),
    });
  try {
    const offered = state.composites.get(params.name);
    const result = offered
      ? await callComposite(state.upstream, offered, args, {
        signal: ctx.mcpReq.signal,
        deadlineMs: COMPOSITE_DEADLINE_MS,
      })
      : await forwardCall(state.upstream, params, ctx);
    record(resultOutcome(result), recordedOutput(result));
    return result;
  } catch (error) {
    record(errorOutcome(error), { text: `error: ${errorMessage(error)}` });
    throw error;
  } finally {
    state.inFlight.count--;
  }
}

/**
 * The call, forwarded: cancellation through the request's signal (the SDK sends
 * `notifications/cancelled` upstream), progress back to the client under its own token.
 */
async function forwardCall(
  upstream: Client,
  params: CallToolRequest["params"],
  ctx: ServerContext,
): Promise<CallToolResult> {
  const { _meta, ...rest } = params;
  const { progressToken, ...meta } = _meta ?? {};
  const forwarded = Object.keys(meta).length ? { ...rest, _meta: meta } : rest;
  const result = await upstream.callTool(forwarded, {
    signal: ctx.mcpReq.signal,
    resetTimeoutOnProgress: true,
    onprogress: progressToken === undefined ? undefined : (progress) => {
      ctx.mcpReq.notify({
        method: "notifications/progress",
        params: { ...progress, progressToken },
      }).catch(() => {});
    },
  });
  return result as CallToolResult;
}
