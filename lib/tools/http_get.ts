import type { ToolDescriptor } from "./tool_descriptor.ts";

const HTTP_TIMEOUT_MS = 30_000;

/**
 * `http.get`'s run loads at its first call, through a computed specifier (see
 * `shell_exec.ts`); `deno compile` embeds it by name (`scripts/compile_options.ts`).
 */
function importHttpGetRun(): Promise<typeof import("./_http_get_run.ts")> {
  return import(new URL("./_http_get_run.ts", import.meta.url).href);
}

/**
 * `http.get {url, use_cache=true}` (Spectator §4): refused unless a capability allows the
 * host; a cached answer is still refused without the grant; redirects are followed by
 * hand, each hop checked from scratch; any status is `ok: true` with it (a 404 is an
 * answer), only 2xx answers are cached. Its run (`_http_get_run.ts`) loads at its first
 * call.
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
  async run(args, context) {
    return (await importHttpGetRun()).runHttpGet(args, context);
  },
};
