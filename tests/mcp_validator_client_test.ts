/** `connectValidator` against real processes and sockets, as `generate` will use it. */
import { loadConfig } from "../lib/core/mod.ts";
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import {
  connectValidator,
  createValidatorHandler,
  openValidator,
  startValidatorServer,
} from "../lib/mcp/mod.ts";
import { settlesWithin } from "../lib/rpc/mod.ts";
import { denoDir } from "./fakes/child_env.ts";
import { SELF_COMMAND } from "./fakes/cli_io.ts";
import { CONFORMANCE_SCHEMAS, sharedMissing, sharedPath } from "./fakes/shared.ts";
import { SOCKET_TESTS } from "./fakes/socket_tests.ts";
import { waitUntil } from "./fakes/wait_until.ts";
import { newService } from "./mcp_channels.ts";

const envOf = (values: Record<string, string>) => loadConfig((name) => values[name]);

async function withReadyDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "syn_mcp_client_" });
  try {
    return await run(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("connectValidator() with nothing configured runs our own mcp-serve --stdio child", async () => {
  await withReadyDir(async (dir) => {
    const warnings: string[] = [];
    const client = await connectValidator({
      config: envOf({ MCP_READY_FILE: `${dir}/ready` }),
      selfCommand: SELF_COMMAND,
      warn: (line) => warnings.push(line),
    });
    assert.equal(client.transport, "stdio");
    assert.deepEqual(await client.validateAsset({ name: "x" }, "synesthetic-asset"), {
      ok: true,
      errors: [],
    });
    const list = await client.call("list_schemas");
    assert.equal(list.ok, true);
    await client.close();
    assert.ok(warnings.some((line) => line.startsWith("validator: mcp:ready mode=stdio")));
  });
});

Deno.test("openValidator() with closeAfter: the child ends once the answer is in, before close()", async () => {
  await withReadyDir(async (dir) => {
    const ready = `${dir}/ready`;
    const validator = await openValidator({
      config: envOf({ MCP_READY_FILE: ready }),
      selfCommand: SELF_COMMAND,
      warn: () => {},
      closeAfter: 1,
    });
    assert.deepEqual(await validator.validateAsset({ name: "x" }, "synesthetic-asset"), {
      ok: true,
      errors: [],
    });
    // The child removes its ready file as it exits: its input was ended without close().
    let waiting = true;
    const gone = async () => {
      while (waiting && await Deno.stat(ready).then(() => true, () => false)) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const ended = await settlesWithin(gone(), 10_000);
    waiting = false;
    assert.ok(ended, "the child is still running");
    const late = await validator.call("list_schemas");
    assert.equal(late.ok, false);
    assert.equal(late.reason, "transport_error");
    assert.equal(validator.calls, 2);
    await validator.close();
  });
});

Deno.test("connectValidator() gives its own child a ready file of its own, removed on close", async () => {
  const ownReadyFiles = () =>
    [...Deno.readDirSync(tmpdir())]
      .map((entry) => entry.name)
      .filter((name) => name.startsWith(`syn-mcp-${Deno.pid}-`) && name.endsWith(".ready"));
  const before = ownReadyFiles();
  const client = await connectValidator({ config: envOf({}), selfCommand: SELF_COMMAND });
  assert.equal((await client.call("list_schemas")).ok, true);
  const during = ownReadyFiles().filter((name) => !before.includes(name));
  assert.equal(during.length, 1, "one ready file for the child");
  const content = await Deno.readTextFile(`${tmpdir()}/${during[0]}`);
  assert.match(content, /^\d+ \d{4}-\d{2}-\d{2}T[^ ]+\n$/);
  await client.close();
  assert.deepEqual(ownReadyFiles().filter((name) => !before.includes(name)), []);
});

Deno.test({
  name:
    "connectValidator() forwards SYN_SCHEMAS_DIR to a stdio child, with one deprecation warning",
  ignore: sharedMissing(CONFORMANCE_SCHEMAS),
  async fn() {
    await withReadyDir(async (dir) => {
      const warnings: string[] = [];
      const client = await connectValidator({
        config: envOf({
          SYN_SCHEMAS_DIR: sharedPath(CONFORMANCE_SCHEMAS),
          MCP_READY_FILE: `${dir}/r`,
        }),
        selfCommand: SELF_COMMAND,
        warn: (line) => warnings.push(line),
      });
      const list = await client.call("list_schemas");
      const paths = (list.schemas as { path: string }[]).map((entry) => entry.path);
      assert.ok(paths.length > 0);
      assert.ok(!paths.some((path) => path.startsWith("schemas/")), paths.join(", "));
      await client.call("list_schemas");
      await client.close();
      // Labs spec: deprecated for the validator, "warn once when forwarded".
      const deprecations = warnings.filter((line) => line.includes("SYN_SCHEMAS_DIR"));
      assert.equal(deprecations.length, 1, warnings.join("\n"));
      assert.match(deprecations[0], /deprecated; forwarded to the stdio validator child/);
    });
  },
});

Deno.test("connectValidator() uses MCP_ADAPTER_CMD and reports a child that dies", async () => {
  await withReadyDir(async (dir) => {
    const script = `${dir}/adapter.ts`;
    // Answers one request, then exits: the second call must not hang.
    await Deno.writeTextFile(
      script,
      `const reader = Deno.stdin.readable.getReader();
       await reader.read();
       await Deno.stdout.write(new TextEncoder().encode(
         JSON.stringify({ jsonrpc: "2.0", id: 1, result: { ok: true, errors: [] } }) + "\\n"));
       Deno.exit(3);`,
    );
    const client = await connectValidator({
      config: envOf({
        MCP_ENDPOINT: "stdio",
        MCP_ADAPTER_CMD: `"${Deno.execPath()}" run ${script}`,
      }),
      selfCommand: SELF_COMMAND,
      timeoutMs: 5_000,
    });
    assert.deepEqual(await client.validateAsset({ name: "x" }), { ok: true, errors: [] });
    const after = await client.validateAsset({ name: "x" });
    assert.equal(after.ok, false);
    assert.equal(after.reason, "transport_error");
    await client.close();
  });
});

Deno.test("connectValidator() does not hand the provider keys to a stdio validator child", async () => {
  await withReadyDir(async (dir) => {
    const script = `${dir}/adapter.ts`;
    await Deno.writeTextFile(
      script,
      `const names = ["OPENAI_API_KEY", "GEMINI_API_KEY", "ANTHROPIC_API_KEY"];
       console.error(names.map((name) => name + "=[" + (Deno.env.get(name) ?? "") + "]").join(" "));
       const reader = Deno.stdin.readable.getReader();
       await reader.read();
       await Deno.stdout.write(new TextEncoder().encode(
         JSON.stringify({ jsonrpc: "2.0", id: 1, result: { ok: true, errors: [] } }) + "\\n"));
       while (!(await reader.read()).done);`,
    );
    // The child inherits this process's environment, where the keys live.
    const saved = new Map(
      ["OPENAI_API_KEY", "GEMINI_API_KEY"].map((name) => [name, Deno.env.get(name)]),
    );
    Deno.env.set("OPENAI_API_KEY", "sk-proj-SYNFAKEKEY-child-0123456789");
    Deno.env.set("GEMINI_API_KEY", "SYNFAKEKEY-child-gemini-0123");
    const lines: string[] = [];
    try {
      const client = await connectValidator({
        config: envOf({
          MCP_ENDPOINT: "stdio",
          MCP_ADAPTER_CMD: `"${Deno.execPath()}" run --allow-env ${script}`,
        }),
        selfCommand: SELF_COMMAND,
        timeoutMs: 5_000,
        warn: (line) => lines.push(line),
      });
      assert.deepEqual(await client.validateAsset({ name: "x" }), { ok: true, errors: [] });
      await client.close();
    } finally {
      for (const [name, value] of saved) {
        if (value === undefined) Deno.env.delete(name);
        else Deno.env.set(name, value);
      }
    }
    assert.ok(lines.some((line) => line.includes("OPENAI_API_KEY=[]")), lines.join("\n"));
    assert.ok(!lines.join("\n").includes("SYNFAKEKEY"), lines.join("\n"));
  });
});

Deno.test("connectValidator() close() stops a stdio child that ignores its input and SIGTERM", async () => {
  await withReadyDir(async (dir) => {
    const script = `${dir}/stubborn.ts`;
    await Deno.writeTextFile(
      script,
      `Deno.addSignalListener("SIGTERM", () => console.error("ignoring SIGTERM"));
       console.error("armed");
       setInterval(() => {}, 1000);`,
    );
    const warnings: string[] = [];
    const client = await connectValidator({
      config: envOf({
        MCP_ENDPOINT: "stdio",
        MCP_ADAPTER_CMD: `"${Deno.execPath()}" run ${script}`,
      }),
      selfCommand: SELF_COMMAND,
      warn: (line) => warnings.push(line),
      timeoutMs: 200,
      closeGraceMs: 100,
    });
    await waitUntil(() => warnings.includes("validator: armed"), "the child's armed line");
    assert.equal((await client.validateAsset({ name: "x" })).reason, "timeout");
    // Without the SIGTERM → SIGKILL escalation close() never returns: the limit fails instead.
    const closing = client.close();
    assert.ok(await settlesWithin(closing, 8_000), "close() is still waiting");
    await closing;
    assert.ok(warnings.includes("validator: ignoring SIGTERM"), warnings.join("\n"));
  });
});

Deno.test("connectValidator() reports a missing adapter binary as transport_error", async () => {
  const client = await connectValidator({
    config: envOf({ MCP_ENDPOINT: "stdio", MCP_ADAPTER_CMD: "/nonexistent/adapter --x" }),
    selfCommand: SELF_COMMAND,
  });
  const verdict = await client.validateAsset({});
  assert.equal(verdict.reason, "transport_error");
  assert.match(verdict.detail ?? "", /cannot start \/nonexistent\/adapter/);
  await client.close();
});

Deno.test({
  name: "connectValidator() over tcp and socket, with the deprecation warning",
  ignore: SOCKET_TESTS.ignore,
  fn: async () => {
    const service = await newService();
    const dir = await Deno.makeTempDir({ prefix: "syn_mcp_client_" });
    const tcp = await startValidatorServer(
      { mode: "tcp", hostname: "127.0.0.1", port: 0 },
      () => createValidatorHandler(service),
    );
    const socket = await startValidatorServer(
      { mode: "socket", path: `${dir}/v.sock` },
      () => createValidatorHandler(service),
    );
    try {
      const warnings: string[] = [];
      const overTcp = await connectValidator({
        config: envOf({
          MCP_ENDPOINT: "tcp",
          MCP_HOST: "127.0.0.1",
          MCP_PORT: tcp.address.split(":")[1],
          SYN_SCHEMAS_DIR: "/ignored",
        }),
        selfCommand: SELF_COMMAND,
        warn: (line) => warnings.push(line),
      });
      assert.equal(overTcp.transport, "tcp");
      assert.deepEqual(await overTcp.validateAsset({ name: "x" }, "synesthetic-asset"), {
        ok: true,
        errors: [],
      });
      assert.equal(warnings.filter((line) => line.includes("SYN_SCHEMAS_DIR")).length, 1);
      const overSocket = await connectValidator({
        config: envOf({ MCP_ENDPOINT: "socket", MCP_SOCKET_PATH: socket.address }),
        selfCommand: SELF_COMMAND,
      });
      assert.equal(overSocket.transport, "socket");
      const invalid = await overSocket.validateAsset({ name: 3 }, "synesthetic-asset");
      assert.equal(invalid.ok, false);
      assert.deepEqual(invalid.errors?.map((error) => error.path), ["/name"]);
      await overTcp.close();
      await overSocket.close();
    } finally {
      await tcp.shutdown();
      await socket.shutdown();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("connectValidator() calls resolve with transport_error when the server goes away", async () => {
  const service = await newService({ delayMs: 300 });
  // The server shuts down once the first call has reached the service.
  const arrived = Promise.withResolvers<void>();
  const call = service.call.bind(service);
  service.call = (name, params) => {
    arrived.resolve();
    return call(name, params);
  };
  const server = await startValidatorServer(
    { mode: "tcp", hostname: "127.0.0.1", port: 0 },
    () => createValidatorHandler(service),
  );
  const client = await connectValidator({
    config: envOf({ MCP_PORT: server.address.split(":")[1] }),
    selfCommand: SELF_COMMAND,
  });
  const first = client.call("list_schemas");
  const second = client.call("list_schemas"); // queued behind the first
  await arrived.promise;
  await server.shutdown(); // finishes the in-flight call, then closes the connection
  assert.equal((await first).ok, true);
  assert.deepEqual(await second, {
    ok: false,
    reason: "transport_error",
    detail: "validator closed the connection",
  });
  await client.close();
});

Deno.test("connectValidator() starts a stdio child with NO_COLOR=1 and our DENO_DIR, and drops its colour codes", async () => {
  await withReadyDir(async (dir) => {
    const script = `${dir}/adapter.ts`;
    // Prints what it was given, and a Deno-style coloured Download line as a first run does.
    await Deno.writeTextFile(
      script,
      `console.error("NO_COLOR=[" + (Deno.env.get("NO_COLOR") ?? "") + "] DENO_DIR=[" +
         (Deno.env.get("DENO_DIR") ?? "") + "]");
       console.error("\\x1b[0m\\x1b[32mDownload\\x1b[0m https://registry.npmjs.org/ajv");
       const reader = Deno.stdin.readable.getReader();
       await reader.read();
       await Deno.stdout.write(new TextEncoder().encode(
         JSON.stringify({ jsonrpc: "2.0", id: 1, result: { ok: true, errors: [] } }) + "\\n"));
       while (!(await reader.read()).done);`,
    );
    const lines: string[] = [];
    const client = await connectValidator({
      config: envOf({
        MCP_ENDPOINT: "stdio",
        MCP_ADAPTER_CMD: `"${Deno.execPath()}" run --allow-env ${script}`,
        // Only in the configuration (as from .env), not in this process's environment.
        DENO_DIR: denoDir(),
      }),
      selfCommand: SELF_COMMAND,
      warn: (line) => lines.push(line),
    });
    assert.deepEqual(await client.validateAsset({ name: "x" }), { ok: true, errors: [] });
    await client.close();
    assert.deepEqual(lines, [
      `validator: NO_COLOR=[1] DENO_DIR=[${denoDir()}]`,
      "validator: Download https://registry.npmjs.org/ajv",
    ]);
  });
});
