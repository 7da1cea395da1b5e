import type { PageFile } from "./page_files.ts";
import type { PreviewDocument } from "./preview_document.ts";

/** Headers on every answer: the page runs only its own scripts and talks only to us. */
const SECURITY_HEADERS = {
  "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; " +
    "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; " +
    "frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

/** What the handler serves: the page's files and the documents, by index. */
export interface PreviewContent {
  files: ReadonlyMap<string, PageFile>;
  documents: readonly PreviewDocument[];
}

/**
 * Answers one request of the preview page: `/` (the page), `/page/<file>` (its modules,
 * from a fixed list) and `/asset.json?doc=N`. Only GET and HEAD, and only with a Host of
 * this very loopback listener, so a page elsewhere cannot read the asset through DNS
 * rebinding.
 */
export function handlePreviewRequest(
  request: Request,
  content: PreviewContent,
  port: number,
): Response {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return text(405, "only GET and HEAD", { allow: "GET, HEAD" });
  }
  const host = request.headers.get("host") ?? "";
  if (![`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(host)) {
    return text(421, "this server answers only to its own loopback address");
  }
  const url = new URL(request.url);
  if (url.pathname === "/" || url.pathname === "/index.html") {
    return file(content.files.get("index.html"));
  }
  if (url.pathname.startsWith("/page/")) {
    return file(content.files.get(url.pathname.slice("/page/".length)));
  }
  if (url.pathname === "/asset.json") {
    const index = Number(url.searchParams.get("doc") ?? "0");
    const document = Number.isInteger(index) ? content.documents[index] : undefined;
    if (!document) return text(404, "no such document");
    return new Response(JSON.stringify(document), {
      headers: { ...SECURITY_HEADERS, "content-type": "application/json; charset=utf-8" },
    });
  }
  return text(404, "not found");
}

function file(page: PageFile | undefined): Response {
  if (!page) return text(404, "not found");
  return new Response(page.bytes.slice(), {
    headers: { ...SECURITY_HEADERS, "content-type": page.contentType },
  });
}

function text(status: number, body: string, extra: Record<string, string> = {}): Response {
  return new Response(`${body}\n`, {
    status,
    headers: { ...SECURITY_HEADERS, "content-type": "text/plain; charset=utf-8", ...extra },
  });
}

/** A running preview server. */
export interface PreviewServer {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  port: number;
  /** Resolves when the server has stopped. */
  finished: Promise<void>;
  /** Stops the server and waits for it. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Serves the preview on 127.0.0.1 (a free port unless `port` is given). */
export function startPreviewServer(content: PreviewContent, port = 0): PreviewServer {
  const stopping = new AbortController();
  let bound = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port, signal: stopping.signal, onListen() {} },
    (request) => handlePreviewRequest(request, content, bound),
  );
  bound = (server.addr as Deno.NetAddr).port;
  const close = async () => {
    stopping.abort();
    await server.finished;
  };
  return {
    url: `http://127.0.0.1:${bound}/`,
    port: bound,
    finished: server.finished,
    close,
    [Symbol.asyncDispose]: close,
  };
}
