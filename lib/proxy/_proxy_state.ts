import type { Client, Tool } from "@modelcontextprotocol/client";
import type { EventRecorder } from "./event_recorder.ts";
import type { OfferedComposite } from "./upstream_composites.ts";

/** What the proxy holds while it serves. */
export interface ProxyState {
  upstream: Client;
  recorder: EventRecorder;
  composites: Map<string, OfferedComposite>;
  upstreamTools: Tool[];
  sessionId: string;
  now: () => number;
  inFlight: { count: number };
}
