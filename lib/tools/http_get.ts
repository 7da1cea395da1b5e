import { runHttpGet } from "./_http_get_run.ts";
import type { ToolDescriptor } from "./tool_descriptor.ts";

const HTTP_TIMEOUT_MS = 30_000;

/**
 * `http.get {url, use_cache=true}` (Spectator §4): refused unless a capability allows the
 * host; a cached answer is still refused without the grant; redirects are followed by
 * hand, each hop checked from scratch; any status is `ok: true` with it (a 404 is an
 * answer), only 2xx answers are cached. Its run is in
 * `_http_get_run.ts`.
 */
export const HTTP_GET: ToolDescriptor = {
  name: "http.get",
  description:
    "GET an http(s) URL the session was granted (net or net:<host>). Redirects are checked hop by hop; the body is capped at 1 MiB; fresh answers come from the cache.",
  argsSchema: {
    type: "object",
    properties: {
      url: { type: "string", minLength: 1, maxLength: 8192 },
      use_cache: { type: "boolean", default: true },
    },
    required: ["url"],
    additionalProperties: false,
  },
  // A GET changes nothing (RFC 9110 §9.2.1: safe and idempotent) but reaches the network.
  effects: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
  startsPrograms: false,
  timeoutMs: () => HTTP_TIMEOUT_MS,
  run: runHttpGet,
};
