/**
 * A feature pass over the reference server `@modelcontextprotocol/server-everything`
 * (`.ci/run` installs it into `.tools/server-everything/`; without it, or without Node,
 * the test is ignored with the reason printed): the same checks with the official SDK
 * client — handlers for sampling, elicitation (form and URL) and roots declared — directly
 * on stdio, through `syn mcp-proxy` on stdio and through `syn mcp-proxy --http`. Every
 * check must pass directly, and give the same result all three ways.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  Client,
  type ProtocolError,
  StreamableHTTPClientTransport,
  type Transport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { childEnv, collectStream } from "./fakes/child_env.ts";
import { runSyn, SELF_COMMAND } from "./fakes/cli_io.ts";
import { spawnHttpServer } from "./fakes/mcp_http_child.ts";

const EVERYTHING = fileURLToPath(
  new URL(
    "../.tools/server-everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    import.meta.url,
  ),
);
const UPSTREAM = ["node", EVERYTHING, "stdio"];

function missing(): string | undefined {
  try {
    Deno.statSync(EVERYTHING);
  } catch {
    return `no server-everything at ${EVERYTHING} (.ci/run installs it there)`;
  }
  try {
    const { code } = new Deno.Command("node", {
      args: ["--version"],
      clearEnv: true,
      env: childEnv(),
      stdout: "null",
      stderr: "null",
    }).outputSync();
    if (code !== 0) return "node --version failed";
  } catch {
    return "no node on PATH";
  }
  return undefined;
}

const reason = missing();
if (reason) console.warn(`skipping the server-everything feature pass: ${reason}`);

/** What the client's handlers saw, for the checks that ask the client. */
interface Seen {
  sampling: string[];
  elicitation: string[];
}

function featureClient(seen: Seen): Client {
  const client = new Client({ name: "feature-pass", version: "1.0.0" }, {
    capabilities: {
      sampling: {},
      elicitation: { form: {}, url: {} },
      roots: { listChanged: true },
    },
  });
  client.setRequestHandler("roots/list", () => ({
    roots: [{ uri: "file:///feature/pass", name: "pass-root" }],
  }));
  client.setRequestHandler("sampling/createMessage", (request) => {
    const first = request.params.messages[0]?.content as { text?: string } | undefined;
    seen.sampling.push(String(first?.text ?? ""));
    return {
      role: "assistant",
      content: { type: "text", text: "sampled by the client" },
      model: "feature-model",
    };
  });
  client.setRequestHandler("elicitation/create", (request) => {
    const params = request.params as { mode?: string; url?: string };
    seen.elicitation.push(`${params.mode ?? "form"}${params.url ? ` ${params.url}` : ""}`);
    if (params.mode === "url") return { action: "accept" };
    return { action: "accept", content: { color: "blue", number: 7, pets: "cats" } };
  });
  return client;
}

type Check = (client: Client, seen: Seen) => Promise<unknown>;

/** A text result's texts, joined. */
function texts(result: { content?: unknown }): string {
  return ((result.content ?? []) as { type: string; text?: string }[])
    .map((item) => item.type === "text" ? item.text : `[${item.type}]`).join(" | ");
}

/** The checks, each giving a value that must be the same whichever way the client connects. */
const CHECKS: Record<string, Check> = {
  "server name": (client) => Promise.resolve(client.getServerVersion()?.name),
  "capabilities (tasks aside)": (client) => {
    const { tasks: _tasks, ...rest } = (client.getServerCapabilities() ?? {}) as Record<
      string,
      unknown
    >;
    return Promise.resolve(Object.keys(rest).sort());
  },
  "tools listed": async (client) =>
    (await client.listTools()).tools.map((tool) => tool.name).sort(),
  "tool annotations": async (client) =>
    (await client.listTools()).tools.find((tool) => tool.name === "echo")?.annotations,
  "echo": async (client) =>
    texts(await client.callTool({ name: "echo", arguments: { message: "hi there" } })),
  "get-sum": async (client) =>
    texts(await client.callTool({ name: "get-sum", arguments: { a: 2, b: 40 } })),
  "get-tiny-image": async (client) => {
    const result = await client.callTool({ name: "get-tiny-image", arguments: {} });
    return (result.content as { type: string; mimeType?: string }[]).map((item) =>
      `${item.type}:${item.mimeType ?? ""}`
    );
  },
  "get-structured-content": async (client) =>
    (await client.callTool({
      name: "get-structured-content",
      arguments: { location: "Chicago" },
    })).structuredContent,
  "get-annotated-message": async (client) =>
    (await client.callTool({
      name: "get-annotated-message",
      arguments: { messageType: "error" },
    })).content,
  "get-resource-links": async (client) =>
    (await client.callTool({ name: "get-resource-links", arguments: { count: 2 } })).content,
  "get-resource-reference": async (client) =>
    (await client.callTool({ name: "get-resource-reference", arguments: {} })).content,
  "a tool that does not exist": async (client) => {
    try {
      const result = await client.callTool({ name: "no-such-tool", arguments: {} });
      return { isError: result.isError, text: texts(result) };
    } catch (error) {
      return { code: (error as ProtocolError).code };
    }
  },
  "progress": async (client) => {
    const progress: number[] = [];
    const result = await client.callTool(
      { name: "trigger-long-running-operation", arguments: { duration: 1, steps: 3 } },
      { onprogress: (update) => progress.push(update.progress) },
    );
    // The last update and the result race on the server's side (a client drops an update
    // that comes after the result), directly as through the proxy: compare that it moved.
    const moved = progress.length >= 2 &&
      progress.every((value, i) => !i || value > progress[i - 1]);
    return { text: texts(result), moved };
  },
  "cancellation": async (client) => {
    const controller = new AbortController();
    const call = client.callTool(
      { name: "trigger-long-running-operation", arguments: { duration: 30, steps: 30 } },
      { signal: controller.signal, onprogress: () => controller.abort("enough") },
    );
    try {
      await call;
      return "finished";
    } catch {
      // The server is still answering other requests after the cancelled one.
      return `cancelled; then ${
        texts(await client.callTool({ name: "echo", arguments: { message: "after" } }))
      }`;
    }
  },
  "roots": async (client) =>
    texts(await client.callTool({ name: "get-roots-list", arguments: {} })).includes(
      "file:///feature/pass",
    ),
  "sampling": async (client, seen) => {
    const result = await client.callTool({
      name: "trigger-sampling-request",
      arguments: { prompt: "say something", maxTokens: 20 },
    });
    return { answered: texts(result).includes("sampled by the client"), asked: seen.sampling };
  },
  "elicitation (form)": async (client, seen) => {
    const result = await client.callTool({ name: "trigger-elicitation-request", arguments: {} });
    return { accepted: /accept/i.test(texts(result)), asked: seen.elicitation.slice(-1) };
  },
  "elicitation (url)": async (client, seen) => {
    const result = await client.callTool({
      name: "trigger-url-elicitation",
      arguments: { url: "https://example.com/consent", elicitationId: "e-1" },
    });
    return { accepted: /accept/i.test(texts(result)), asked: seen.elicitation.slice(-1) };
  },
  "URL elicitation required (-32042)": async (client) => {
    try {
      await client.callTool({
        name: "trigger-url-elicitation",
        arguments: { url: "https://example.com/pay", errorPath: true },
      });
      return "no error";
    } catch (error) {
      const { code, data } = error as ProtocolError;
      const elicitations = (data as { elicitations?: { mode: string; url: string }[] })
        ?.elicitations ?? [];
      return { code, elicitations: elicitations.map((item) => `${item.mode} ${item.url}`) };
    }
  },
  "resources listed": async (client) =>
    (await client.listResources()).resources.map((resource) => resource.uri).sort(),
  "resource read": async (client) => {
    const { resources } = await client.listResources();
    const read = await client.readResource({ uri: resources[0].uri });
    return read.contents.map((item) => [item.uri, item.mimeType]);
  },
  "resource templates": async (client) =>
    (await client.listResourceTemplates()).resourceTemplates.map((item) => item.uriTemplate),
  "template read": async (client) =>
    (await client.readResource({ uri: "demo://resource/dynamic/text/3" })).contents,
  "prompts listed": async (client) =>
    (await client.listPrompts()).prompts.map((prompt) => prompt.name).sort(),
  "prompt with arguments": async (client) =>
    (await client.getPrompt({ name: "args-prompt", arguments: { city: "Oslo" } })).messages,
  "completion": async (client) =>
    (await client.complete({
      ref: { type: "ref/prompt", name: "completable-prompt" },
      argument: { name: "department", value: "E" },
    })).completion.values,
  "logging level": async (client) => await client.setLoggingLevel("error"),
  "ping": async (client) => await client.ping(),
};

/** Runs every check on a fresh client over `transport`; each gives its value or its error. */
async function featurePass(transport: Transport): Promise<Record<string, string>> {
  const seen: Seen = { sampling: [], elicitation: [] };
  const client = featureClient(seen);
  await client.connect(transport);
  // Kept apart from the checks: tasks are not carried, so the proxy does not advertise them.
  const results: Record<string, string> = {
    tasks: String("tasks" in (client.getServerCapabilities() ?? {})),
  };
  try {
    for (const [name, check] of Object.entries(CHECKS)) {
      try {
        // The server stamps its dynamic resources with the time they were made.
        results[name] = JSON.stringify(await check(client, seen))
          .replace(/\d{1,2}:\d{2}:\d{2}\s?[AP]M/g, "<time>");
      } catch (error) {
        results[name] = `failed: ${(error as Error).message}`;
      }
    }
  } finally {
    // A client that is done ends its HTTP session (DELETE), as the SDK's examples do.
    if (transport instanceof StreamableHTTPClientTransport) {
      await transport.terminateSession().catch(() => {});
    }
    await client.close();
  }
  return results;
}

function stdioTransport(args: string[]): { transport: StdioClientTransport; stderr(): string } {
  const transport = new StdioClientTransport({
    command: args[0],
    args: args.slice(1),
    env: childEnv(),
    stderr: "pipe",
  });
  const stderr = collectStream(transport.stderr);
  return { transport, stderr: () => stderr.text() };
}

Deno.test({
  name:
    "server-everything passes the same feature checks directly, through mcp-proxy on stdio and through mcp-proxy --http",
  ignore: reason !== undefined,
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_proxy_everything_" });
  try {
    const direct = stdioTransport(UPSTREAM);
    const { tasks: directTasks, ...directResults } = await featurePass(direct.transport);
    assert.equal(directTasks, "true");
    const failedDirectly = Object.entries(directResults).filter(([, value]) =>
      value.startsWith("failed:")
    );
    assert.deepEqual(failedDirectly, [], `direct:\n${direct.stderr()}`);

    const proxied = stdioTransport([
      ...SELF_COMMAND,
      "mcp-proxy",
      "--state-dir",
      `${dir}/state`,
      "--",
      ...UPSTREAM,
    ]);
    const { tasks: stdioTasks, ...stdioResults } = await featurePass(proxied.transport);
    assert.equal(stdioTasks, "false");
    assert.deepEqual(stdioResults, directResults, `through stdio:\n${proxied.stderr()}`);

    const proxy = await spawnHttpServer(
      ["--http", "127.0.0.1:0", "--state-dir", `${dir}/state-http`, "--", ...UPSTREAM],
      { command: "mcp-proxy" },
    );
    try {
      const transport = new StreamableHTTPClientTransport(new URL(proxy.url), {
        requestInit: { headers: { authorization: `Bearer ${proxy.token}` } },
      });
      const { tasks: httpTasks, ...httpResults } = await featurePass(transport);
      assert.equal(httpTasks, "false");
      assert.deepEqual(httpResults, directResults, `through --http:\n${proxy.stderr()}`);
    } finally {
      const status = await proxy.stop();
      assert.equal(status.code, 0, proxy.stderr());
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "mcp-proxy --shared-upstream sends each of the server's sampling requests to the client whose call asked",
  ignore: reason !== undefined,
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_proxy_shared_everything_" });
  const proxy = await spawnHttpServer(
    [
      "--http",
      "127.0.0.1:0",
      "--shared-upstream",
      "--state-dir",
      `${dir}/state`,
      "--",
      ...UPSTREAM,
    ],
    { command: "mcp-proxy" },
  );
  try {
    const clients = await Promise.all(["first", "second"].map(async (name) => {
      const client = new Client({ name, version: "1.0.0" }, { capabilities: { sampling: {} } });
      client.setRequestHandler("sampling/createMessage", () => ({
        role: "assistant",
        content: { type: "text", text: `answered by the ${name} client` },
        model: "feature-model",
      }));
      const transport = new StreamableHTTPClientTransport(new URL(proxy.url), {
        requestInit: { headers: { authorization: `Bearer ${proxy.token}` } },
      });
      await client.connect(transport);
      return { name, client, transport };
    }));
    for (const round of [0, 1]) {
      for (const { name, client } of round ? [...clients].reverse() : clients) {
        const result = await client.callTool({
          name: "trigger-sampling-request",
          arguments: { prompt: `round ${round}`, maxTokens: 10 },
        });
        assert.match(texts(result), new RegExp(`answered by the ${name} client`), proxy.stderr());
      }
    }
    for (const { client, transport } of clients) {
      await transport.terminateSession();
      await client.close();
    }
  } finally {
    const status = await proxy.stop();
    assert.equal(status.code, 0, proxy.stderr());
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "a very short stdio session through mcp-proxy ends server-everything cleanly (no write to a closed pipe)",
  ignore: reason !== undefined,
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "syn_proxy_short_" });
  try {
    const lines = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: { sampling: {}, roots: {} },
          clientInfo: { name: "short", version: "1.0.0" },
        },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
    ].map((line) => JSON.stringify(line)).join("\n") + "\n";
    for (let run = 0; run < 3; run++) {
      const result = await runSyn(
        ["mcp-proxy", "--no-record", "--state-dir", `${dir}/state`, "--", ...UPSTREAM],
        { stdin: lines, cwd: dir },
      );
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /"id":1/);
      assert.doesNotMatch(result.stderr, /EPIPE|Unhandled|Error/, result.stderr);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
