import { serveLocal, ServerEdge } from "../core/mod.ts";
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
 * Answers one request of the preview page as the server does: the edge's checks first
 * (a loopback Host only, so a page elsewhere cannot read the asset through DNS rebinding;
 * no cross-site Origin; no token — the page is read-only), then {@linkcode previewResponse}.
 */
export function handlePreviewRequest(
  request: Request,
  content: PreviewContent,
  port: number,
): Response {
  return new ServerEdge({ boundHostname: "127.0.0.1", port }).check(request) ??
    previewResponse(request, content);
}

/**
 * The preview's content: `/` (the page), `/page/<file>` (its modules, from a fixed list)
 * and `/asset.json?doc=N`; only GET and HEAD.
 */
export function previewResponse(request: Request, content: PreviewContent): Response {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return text(405, "only GET and HEAD", { allow: "GET, HEAD" });
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

/** Serves the preview on 127.0.0.1 (a free port unless `port` is given), behind the edge. */
export function startPreviewServer(content: PreviewContent, port = 0): PreviewServer {
  const stopping = new AbortController();
  const { server } = serveLocal(
    { hostname: "127.0.0.1", port, signal: stopping.signal },
    (request) => previewResponse(request, content),
  );
  const bound = server.addr.port;
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
