import type { Client, Tool } from "@modelcontextprotocol/client";
import type { ToolCallRecorder } from "../synthesize/mod.ts";
import type { OfferedComposite } from "./upstream_composites.ts";

/** What the proxy holds while it serves. */
export interface ProxyState {
  upstream: Client;
  recorder: ToolCallRecorder;
  composites: Map<string, OfferedComposite>;
  upstreamTools: Tool[];
  sessionId: string;
  now: () => number;
  inFlight: { count: number };
}
