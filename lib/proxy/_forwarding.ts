/**
 * What crosses the proxy besides tool calls: the client's requests the upstream's
 * capabilities allow, the upstream's notifications, and the upstream's requests to the
 * client (`sampling/createMessage`, `elicitation/create`, `roots/list`) with their answers,
 * errors (`-32042` included), progress and cancellation — each to the client session it
 * belongs to.
 */
import {
  type Client,
  type ClientCapabilities,
  ProtocolError,
  ProtocolErrorCode,
} from "@modelcontextprotocol/client";
import type { RequestId, Server, ServerCapabilities } from "@modelcontextprotocol/server";
import type { UpstreamRelay } from "./_fast_calls.ts";

/** How long a request of the upstream may wait on the client (a person may be answering). */
export const CLIENT_REQUEST_TIMEOUT_MS = 10 * 60_000;

/** A client session as the upstream connection sees it. */
export interface LinkedSession {
  server: Server;
  /** What the client declared in `initialize`. */
  capabilities: ClientCapabilities;
  /** The client's requests being served now, by id: where an upstream request belongs. */
  inFlight: Set<RequestId>;
  /** Resolves once the client has said `initialized` (or the session closed). */
  ready: Promise<void>;
  /** Reads the upstream's tools (and the composites over them) again. */
  toolsChanged(): Promise<void>;
}

/**
 * An upstream connection and the client sessions it serves: one (the default), or every
 * session with `--shared-upstream`. A request or message of the upstream goes to the
 * session whose requests are in flight; with a shared upstream and several such sessions
 * there is no telling which one caused it, and the request is refused with that reason.
 */
export class UpstreamLink {
  readonly sessions = new Set<LinkedSession>();
  readonly shared: boolean;
  /** The upstream connection, once connected. */
  client!: Client;
  /** The fast path's side of that connection. */
  relay!: UpstreamRelay;
  /** Settles when the first session joins, or the link ends before one does. */
  readonly #joined = Promise.withResolvers<void>();

  constructor(shared: boolean) {
    this.shared = shared;
  }

  join(session: LinkedSession): void {
    this.sessions.add(session);
    this.#joined.resolve();
  }

  leave(session: LinkedSession): void {
    this.sessions.delete(session);
    this.#joined.resolve();
  }

  /**
   * The session a request or message of the upstream belongs to, if one can be told. An
   * upstream of its own may ask before its session has joined (as soon as it is told the
   * client is ready): that waits for the session.
   */
  async route(): Promise<LinkedSession | undefined> {
    if (!this.shared) {
      if (this.sessions.size === 0) await this.#joined.promise;
      return this.sessions.values().next().value;
    }
    return this.routeNow();
  }

  /** {@linkcode route} without waiting. */
  routeNow(): LinkedSession | undefined {
    if (!this.shared) return this.sessions.values().next().value;
    let found: LinkedSession | undefined;
    for (const session of this.sessions) {
      if (session.inFlight.size === 0) continue;
      if (found) return undefined;
      found = session;
    }
    return found;
  }
}

/** The upstream's requests to the client, by the client capability that allows each. */
const CLIENT_METHODS = [
  ["sampling/createMessage", "sampling"],
  ["elicitation/create", "elicitation"],
  ["roots/list", "roots"],
] as const;

/**
 * Answers the upstream's requests to the client by asking the client session they belong
 * to, for each capability declared upstream: the answer, or the client's error as it came
 * (code, message and data), goes back; cancellation by the upstream cancels the request to
 * the client; the client's progress reaches the upstream under the upstream's token.
 */
export function answerUpstreamRequests(
  client: Client,
  options: { declared: ClientCapabilities; link: UpstreamLink },
): void {
  const { declared, link } = options;
  for (const [method, capability] of CLIENT_METHODS) {
    if (!declared[capability]) continue;
    client.setRequestHandler(method as "roots/list", async (request, ctx) => {
      const session = await link.route();
      if (!session) {
        throw new ProtocolError(
          ProtocolErrorCode.InternalError,
          `${method} cannot be routed: ${
            link.shared
              ? "no single client session has a request in flight on the shared upstream"
              : "the client session has ended"
          }`,
        );
      }
      if (!session.capabilities[capability]) {
        throw new ProtocolError(
          ProtocolErrorCode.MethodNotFound,
          `Method not found: the client does not offer ${capability}`,
        );
      }
      await session.ready;
      const { _meta, ...params } = request.params ?? {};
      const { progressToken, ...meta } = (_meta ?? {}) as Record<string, unknown>;
      const forwarded = Object.keys(meta).length ? { ...params, _meta: meta } : params;
      const related = [...session.inFlight].at(-1);
      return await session.server.request(
        { method: method as "roots/list", params: forwarded },
        {
          signal: ctx.mcpReq.signal,
          timeout: CLIENT_REQUEST_TIMEOUT_MS,
          relatedRequestId: related,
          onprogress: progressToken === undefined ? undefined : (progress) => {
            ctx.mcpReq.notify({
              method: "notifications/progress",
              params: { ...progress, progressToken: progressToken as string | number },
            }).catch(() => {});
          },
        },
      );
    });
  }
}

/** The client capabilities declared upstream: the client's, without what the proxy cannot carry. */
export function capabilitiesForUpstream(client: ClientCapabilities): ClientCapabilities {
  // Tasks are not carried through (nor advertised to the client): a task-augmented
  // request would need every `tasks/*` method relayed both ways.
  const { tasks: _tasks, ...rest } = client as ClientCapabilities & { tasks?: unknown };
  return rest;
}

/** What a shared upstream is told the clients can do: each request is then checked per client. */
export const SHARED_UPSTREAM_CAPABILITIES: ClientCapabilities = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
};

/** The requests passed through as they are, by the capability that allows them. */
function forwardedMethods(capabilities: ServerCapabilities): string[] {
  return [
    ...(capabilities.resources
      ? ["resources/list", "resources/templates/list", "resources/read"]
      : []),
    ...(capabilities.resources?.subscribe ? ["resources/subscribe", "resources/unsubscribe"] : []),
    ...(capabilities.prompts ? ["prompts/list", "prompts/get"] : []),
    ...(capabilities.completions ? ["completion/complete"] : []),
    ...(capabilities.logging ? ["logging/setLevel"] : []),
  ];
}

/**
 * Every request the upstream's capabilities allow (other than tools) goes to it unchanged;
 * while it is served it counts as the session's request in flight.
 */
export function forwardRequests(
  session: LinkedSession,
  options: { upstream: Client; capabilities: ServerCapabilities },
): void {
  const { upstream, capabilities } = options;
  for (const method of forwardedMethods(capabilities)) {
    session.server.setRequestHandler(method as "ping", async (request, ctx) => {
      session.inFlight.add(ctx.mcpReq.id);
      try {
        return await upstream.request(
          { method: method as "ping", params: request.params },
          { signal: ctx.mcpReq.signal },
        );
      } finally {
        session.inFlight.delete(ctx.mcpReq.id);
      }
    });
  }
}

/** Notifications that go to every session of the upstream. */
const BROADCAST = [
  "notifications/resources/list_changed",
  "notifications/resources/updated",
  "notifications/prompts/list_changed",
] as const;

/** Notifications that go to the session they belong to (every session when none can be told). */
const ROUTED = ["notifications/message", "notifications/elicitation/complete"] as const;

/**
 * The upstream's notifications to its sessions: list changes and resource updates to
 * every one (a tools change first re-reads the composites), log messages and elicitation
 * completions to the session they belong to, on the stream of its request in flight.
 */
export function passNotificationsDown(
  link: UpstreamLink,
  onToolsChanged: () => Promise<void>,
): void {
  const upstream = link.client;
  const toAll = (notification: { method: string; params?: Record<string, unknown> }) => {
    for (const session of link.sessions) {
      session.server.notification(notification as never).catch(() => {});
    }
  };
  for (const method of BROADCAST) upstream.setNotificationHandler(method, toAll);
  for (const method of ROUTED) {
    upstream.setNotificationHandler(method, (notification) => {
      const session = link.routeNow();
      if (!session) return toAll(notification);
      session.server.notification(notification, {
        relatedRequestId: [...session.inFlight].at(-1),
      }).catch(() => {});
    });
  }
  upstream.setNotificationHandler("notifications/tools/list_changed", async (notification) => {
    await onToolsChanged();
    toAll(notification);
  });
}

/** The client's roots changes go to the upstream. */
export function passNotificationsUp(session: LinkedSession, upstream: Client): void {
  session.server.setNotificationHandler("notifications/roots/list_changed", () => {
    upstream.notification({ method: "notifications/roots/list_changed" }).catch(() => {});
  });
}
