import type { Client } from "@modelcontextprotocol/client";
import type { Server, ServerCapabilities } from "@modelcontextprotocol/server";

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

/** Every request the upstream's capabilities allow (other than tools) goes to it unchanged. */
export function forwardRequests(
  server: Server,
  upstream: Client,
  capabilities: ServerCapabilities,
): void {
  for (const method of forwardedMethods(capabilities)) {
    server.setRequestHandler(method as "ping", (request, ctx) =>
      upstream.request(
        { method: method as "ping", params: request.params },
        { signal: ctx.mcpReq.signal },
      ));
  }
}

const PASSED_DOWN = [
  "notifications/resources/list_changed",
  "notifications/resources/updated",
  "notifications/prompts/list_changed",
  "notifications/message",
] as const;

/**
 * Notifications both ways: the upstream's list changes, resource updates and log messages
 * to the client (a tools change first re-reads the composites); the client's roots
 * changes to the upstream, and once the client is ready, if it has roots, the upstream is
 * told to ask for them.
 */
export function forwardNotifications(
  server: Server,
  upstream: Client,
  onToolsChanged: () => Promise<void>,
): void {
  for (const method of PASSED_DOWN) {
    upstream.setNotificationHandler(method, (notification) => {
      server.notification(notification).catch(() => {});
    });
  }
  upstream.setNotificationHandler("notifications/tools/list_changed", async (notification) => {
    await onToolsChanged();
    await server.notification(notification).catch(() => {});
  });
  const rootsChanged = () =>
    upstream.notification({ method: "notifications/roots/list_changed" }).catch(() => {});
  server.setNotificationHandler("notifications/roots/list_changed", () => void rootsChanged());
  server.oninitialized = () => {
    if (server.getClientCapabilities()?.roots) void rootsChanged();
  };
}
