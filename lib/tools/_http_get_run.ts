/**
 * `http.get`'s run (its descriptor, `HTTP_GET`, is in `http_get.ts`): the URL and every
 * redirect hop checked against the session's grants and the addresses it resolves to, the
 * fetch done by the sandbox, 2xx answers cached.
 */
import { VERSION } from "../core/mod.ts";
import { checkAddresses, checkUrl, hostOf, netDecision } from "./_url_policy.ts";
import type { CachedHop, CachedResponse } from "./http_cache_port.ts";
import type { ToolContext } from "./tool_descriptor.ts";
import { ToolFailure } from "./tool_failure.ts";

/** Body bytes kept; a longer answer is cut and marked `truncated`. */
export const MAX_HTTP_BYTES = 1024 * 1024;
/** Redirects followed at most. */
export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

interface Hop {
  status: number;
  location: string | null;
  content_type: string | null;
  body: string;
  truncated: boolean;
}

/** Checks one URL completely: scheme, capability, addresses; says how it was allowed. */
async function checkHop(url: URL, context: ToolContext): Promise<CachedHop> {
  const host = hostOf(url);
  const { exact } = netDecision(context.policy, host);
  await checkAddresses(host, exact, context.resolveHost);
  return { host, exact };
}

/**
 * Whether this session may have a cached answer: every host it came through must be
 * allowed now, and a host the fetching session reached by an exact grant (loopback and
 * private addresses are open to those, and a name may since resolve elsewhere) needs an
 * exact grant here too. Otherwise the answer is fetched as if it were not cached, and
 * that fetch decides.
 */
function mayServe(cached: CachedResponse, context: ToolContext): boolean {
  return cached.hops.length > 0 && cached.hops.every((hop) => {
    try {
      return netDecision(context.policy, hop.host).exact || !hop.exact;
    } catch {
      return false;
    }
  });
}

/** Runs one `http.get` call with validated args (see `HTTP_GET` in `http_get.ts`). */
export async function runHttpGet(
  args: Record<string, unknown>,
  context: ToolContext,
): Promise<unknown> {
  const start = checkUrl(args.url as string);
  netDecision(context.policy, hostOf(start));
  const key = start.href;
  const cache = args.use_cache ? await context.httpCache?.() : undefined;
  const cached = cache?.get(key, context.now());
  if (cached && mayServe(cached, context)) {
    return {
      url: key,
      final_url: cached.final_url,
      status: cached.status,
      content_type: cached.content_type,
      body: cached.body,
      truncated: cached.truncated,
      cached: true,
    };
  }
  const deadline = context.now() + context.timeoutMs;
  let url = start;
  const hops: CachedHop[] = [];
  for (;;) {
    hops.push(await checkHop(url, context));
    const remaining = deadline - context.now();
    if (remaining <= 0) throw new ToolFailure("timeout", "http.get ran out of time");
    const hop = await context.sandbox.request("fetch", {
      url: url.href,
      timeoutMs: remaining,
      maxBytes: MAX_HTTP_BYTES,
      headers: {
        "user-agent": `syn/${VERSION}`,
        accept: "text/*, application/json;q=0.9, */*;q=0.5",
      },
    }, { timeoutMs: remaining + 1000 }) as Hop;
    if (REDIRECT_STATUSES.has(hop.status) && hop.location) {
      if (hops.length > MAX_REDIRECTS) {
        throw new ToolFailure("not_allowed", `More than ${MAX_REDIRECTS} redirects`);
      }
      let next: URL;
      try {
        next = checkUrl(new URL(hop.location, url).href);
      } catch (error) {
        throw new ToolFailure(
          error instanceof ToolFailure ? error.code : "not_allowed",
          `Redirect refused: ${(error as Error).message}`,
        );
      }
      url = next;
      continue;
    }
    const answer = {
      url: key,
      final_url: url.href,
      status: hop.status,
      content_type: hop.content_type,
      body: hop.body,
      truncated: hop.truncated,
    };
    if (cache && hop.status >= 200 && hop.status < 300) {
      cache.put({ ...answer, stored_at: context.now(), hops });
    }
    return { ...answer, cached: false };
  }
}
