/**
 * Endpoint URLs, one way everywhere: how a request path joins a configured base URL (the
 * base's query, such as `?api-version=…` or `?token=…`, stays a query after the path) and
 * how an endpoint looks where others can see it (no user info, query or fragment, which is
 * where keys hide).
 */

function splitQuery(text: string): [string, string] {
  const mark = text.indexOf("?");
  return mark === -1 ? [text, ""] : [text.slice(0, mark), text.slice(mark + 1)];
}

/**
 * `path` (which may carry its own query, like `:streamGenerateContent?alt=sse`) appended
 * to the base's path — trailing slashes of the base trimmed, its fragment dropped — with
 * the path's query first, then the base's.
 */
export function joinEndpoint(base: string, path: string): string {
  const [baseOnly, baseQuery] = splitQuery(base.replace(/#.*$/, ""));
  const [pathOnly, pathQuery] = splitQuery(path.startsWith("/") ? path : `/${path}`);
  const queries = [pathQuery, baseQuery].filter((part) => part !== "");
  return `${baseOnly.replace(/\/+$/, "")}${pathOnly}${
    queries.length ? `?${queries.join("&")}` : ""
  }`;
}

/** The endpoint's path part, without its query or fragment. */
export function endpointPathOf(endpoint: string): string {
  return splitQuery(endpoint.replace(/#.*$/, ""))[0];
}

/**
 * The endpoint as logs, results and provenance show it: without `user:password@`, query or
 * fragment. Anything else (not an http or https URL) is cut at its first `?` or `#` and
 * loses any `…@` user info.
 */
export function publicEndpoint(endpoint: string): string {
  let url: URL | undefined;
  try {
    url = new URL(endpoint);
  } catch {
    url = undefined;
  }
  if (url && (url.protocol === "http:" || url.protocol === "https:")) {
    url.username = "";
    url.password = "";
    url.search = "";
    url.hash = "";
    return url.href;
  }
  return endpoint.replace(/[?#].*$/, "").replace(/^([^/]*\/\/)?[^/@]*@/, "$1");
}
