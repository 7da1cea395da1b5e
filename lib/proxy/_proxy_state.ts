import type { Client } from "@modelcontextprotocol/client";
import type { RecordedCall, UpstreamOrigin } from "../synthesize/mod.ts";
import type { OfferedComposite } from "./upstream_composites.ts";

/** Where calls are recorded: the event store's recorder, or nothing (`--no-record`). */
export interface CallRecorder {
  /** Queues the call: never waits on the store. */
  record(call: RecordedCall): void;
  close(): Promise<void>;
}

/** What the proxy holds while it serves one client session. */
export interface ProxyState {
  upstream: Client;
  recorder: CallRecorder;
  composites: Map<string, OfferedComposite>;
  /** The upstream tools annotated read-only, as last listed (recorded with the session's origin). */
  readOnlyTools: readonly string[];
  sessionId: string;
  /** How the upstream was started, recorded once per session so validation can start it fresh. */
  upstreamOrigin?: UpstreamOrigin;
  now: () => number;
  inFlight: { count: number };
}
