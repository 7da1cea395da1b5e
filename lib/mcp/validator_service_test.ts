import assert from "node:assert/strict";
import { RPC_ERROR, RpcError } from "../rpc/mod.ts";
import { fakeSchemaStore } from "../../tests/mcp_fake_store.ts";
import { backendAssetsUrl, ValidatorService } from "./validator_service.ts";

function service(options: Partial<ConstructorParameters<typeof ValidatorService>[0]> = {}) {
  const logs: string[] = [];
  return {
    logs,
    service: new ValidatorService({
      store: fakeSchemaStore(),
      log: (line) => logs.push(line),
      ...options,
    }),
  };
}

async function rejectsWith(promise: Promise<unknown>, code: number) {
  await assert.rejects(promise, (error) => error instanceof RpcError && error.code === code);
}

Deno.test("ValidatorService lists schemas and examples, and gets them by name and path", async () => {
  const { service: tools } = service();
  assert.deepEqual(await tools.call("list_schemas", {}), {
    ok: true,
    schemas: [{ name: "synesthetic-asset", version: "0.7.3", path: "schemas/fake.json" }],
  });
  const schema = await tools.call("get_schema", { name: "nested-synesthetic-asset" });
  assert.equal(schema.ok, true);
  assert.equal(schema.version, "0.7.3");
  assert.deepEqual(await tools.call("get_schema", { name: "nope" }), {
    ok: false,
    reason: "not_found",
  });
  const all = await tools.call("list_examples", {});
  assert.deepEqual((all.examples as { component: string }[]).map((e) => e.component), [
    "Broken_Example",
    "Thing_Example",
  ]);
  assert.deepEqual(await tools.call("list_examples", { component: "Thing_Example" }), {
    ok: true,
    examples: [{ component: "Thing_Example", path: "examples/Thing_Example.json" }],
  });
});

Deno.test("get_example() reports validated from a validation at call time", async () => {
  const { service: tools } = service();
  const good = await tools.call("get_example", { path: "Thing_Example.json" });
  assert.deepEqual(good, {
    ok: true,
    example: { $schema: "synesthetic-asset", name: "thing", size: 2 },
    schema: "synesthetic-asset",
    validated: true,
  });
  const bad = await tools.call("get_example", { path: "examples/Broken_Example.json" });
  assert.equal(bad.ok, true);
  assert.equal(bad.validated, false);
  assert.deepEqual(await tools.call("get_example", { path: "none.json" }), {
    ok: false,
    reason: "not_found",
  });
});

Deno.test("validate_asset() needs a schema and returns sorted pointer errors", async () => {
  const { service: tools } = service();
  assert.deepEqual(
    await tools.call("validate_asset", { asset: { name: "a" }, schema: "synesthetic-asset" }),
    {
      ok: true,
      errors: [],
    },
  );
  assert.deepEqual(
    await tools.call("validate_asset", {
      asset: { name: 3, size: "big" },
      schema: "synesthetic-asset",
    }),
    {
      ok: false,
      reason: "validation_failed",
      errors: [{ path: "/name", msg: "expected non-empty string" }, {
        path: "/size",
        msg: "expected number",
      }],
    },
  );
  assert.deepEqual(await tools.call("validate_asset", { asset: { name: "a" } }), {
    ok: false,
    reason: "validation_failed",
    errors: [{ path: "", msg: "schema is required" }],
  });
  assert.deepEqual(await tools.call("validate_asset", { asset: {}, schema: "nope" }), {
    ok: false,
    reason: "validation_failed",
    errors: [{ path: "", msg: "unknown schema: nope" }],
  });
});

Deno.test("validate is an alias of validate_asset that logs reason=deprecated_alias", async () => {
  const { service: tools, logs } = service();
  assert.deepEqual(
    await tools.call("validate", { asset: { name: "a" }, schema: "synesthetic-asset" }),
    {
      ok: true,
      errors: [],
    },
  );
  assert.ok(logs.some((line) => line.includes("reason=deprecated_alias")));
});

Deno.test("diff_assets() returns the deterministic RFC 6902 patch", async () => {
  const { service: tools } = service();
  assert.deepEqual(
    await tools.call("diff_assets", {
      base: { a: 1, b: [1], c: { d: 1 } },
      new: { a: 2, b: [1, 2], e: "x/y", c: {} },
    }),
    {
      ok: true,
      patch: [
        { op: "replace", path: "/a", value: 2 },
        { op: "replace", path: "/b", value: [1, 2] },
        { op: "remove", path: "/c/d" },
        { op: "add", path: "/e", value: "x/y" },
      ],
    },
  );
});

Deno.test("diff_assets() refuses a patch that would be far larger than its request", async () => {
  const { service: tools } = service();
  // ~66 KB of input; its patch would carry ~9 million characters of paths (depth²).
  const comb = (leaf: number) => {
    let node: Record<string, unknown> = { b: leaf };
    for (let level = 1; level < 3_000; level++) node = { b: leaf, a: node };
    return node;
  };
  const result = await tools.call("diff_assets", { base: comb(1), new: comb(2) });
  assert.equal(result.ok, false);
  assert.equal(result.reason, "validation_failed");
  assert.deepEqual(result.errors, [{ path: "", msg: "payload_too_large" }]);
  assert.match(String(result.detail), /patch/);
});

Deno.test("ValidatorService rejects bad params with -32602 and unknown tools with -32601", async () => {
  const { service: tools } = service();
  await rejectsWith(tools.call("get_schema", {}), RPC_ERROR.invalidParams);
  await rejectsWith(tools.call("get_schema", { name: 5 }), RPC_ERROR.invalidParams);
  await rejectsWith(tools.call("get_example", ["x"]), RPC_ERROR.invalidParams);
  await rejectsWith(
    tools.call("validate_asset", { schema: "synesthetic-asset" }),
    RPC_ERROR.invalidParams,
  );
  await rejectsWith(tools.call("diff_assets", { base: {} }), RPC_ERROR.invalidParams);
  await rejectsWith(tools.call("list_examples", { component: 1 }), RPC_ERROR.invalidParams);
  await rejectsWith(
    tools.call("populate_backend", { asset: {}, validate_first: "yes" }),
    RPC_ERROR.invalidParams,
  );
  await rejectsWith(tools.call("nope", {}), RPC_ERROR.methodNotFound);
});

async function invalidParams(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof RpcError, String(error));
    assert.equal(error.code, RPC_ERROR.invalidParams);
    return error;
  }
  assert.fail("expected an invalid-params error");
}

Deno.test("ValidatorService checks arguments against the tools' inputSchemas, with pointers", async () => {
  const { service: tools } = service();
  const mistyped = await invalidParams(tools.call("get_schema", { name: 5 }));
  assert.equal(mistyped.message, "Invalid params: /name must be string");
  assert.deepEqual(mistyped.data, { errors: [{ path: "/name", msg: "must be string" }] });
  const missing = await invalidParams(tools.call("diff_assets", { base: {} }));
  assert.deepEqual(missing.data, {
    errors: [{ path: "", msg: "must have required property 'new'" }],
  });
  assert.match(missing.message, /^Invalid params: must have required property 'new'$/);
  // The definition types populate_backend's asset as an object.
  const notObject = await invalidParams(tools.call("populate_backend", { asset: [1] }));
  assert.deepEqual(notObject.data, { errors: [{ path: "/asset", msg: "must be object" }] });
  // The alias takes validate_asset's arguments.
  await invalidParams(tools.call("validate", { asset: {}, schema: 7 }));
  // A null optional argument is an absent one; a null required one is not.
  assert.equal((await tools.call("list_examples", { component: null })).ok, true);
  assert.deepEqual(await tools.call("validate_asset", { asset: { name: "a" }, schema: null }), {
    ok: false,
    reason: "validation_failed",
    errors: [{ path: "", msg: "schema is required" }],
  });
  await invalidParams(tools.call("get_example", { path: null }));
});

Deno.test("every argument a tool definition types is checked as its definition says", async () => {
  const { service: tools } = service();
  for (const definition of tools.definitions) {
    const properties = definition.inputSchema.properties as Record<string, { type?: string }>;
    for (const [parameter, schema] of Object.entries(properties)) {
      if (schema.type === undefined) continue;
      const wrong = schema.type === "string" ? 1 : "text";
      const params = { asset: {}, base: {}, new: {}, name: "x", path: "x", schema: "x" };
      const error = await invalidParams(
        tools.call(definition.name, { ...params, [parameter]: wrong }),
      );
      assert.deepEqual(
        error.data,
        { errors: [{ path: `/${parameter}`, msg: `must be ${schema.type}` }] },
        `${definition.name} ${parameter}`,
      );
    }
  }
});

Deno.test("populate_backend() is unsupported without a backend URL", async () => {
  const { service: tools } = service();
  assert.deepEqual(await tools.call("populate_backend", { asset: { name: "x" } }), {
    ok: false,
    reason: "unsupported",
    detail: "backend disabled",
  });
});

Deno.test("backendAssetsUrl() joins base URL and path like an HTTP client base URL", () => {
  assert.equal(backendAssetsUrl("http://h:1"), "http://h:1/synesthetic-assets/");
  assert.equal(backendAssetsUrl("http://h:1/api/", "/assets"), "http://h:1/api/assets");
  assert.equal(backendAssetsUrl("http://h:1/api", "assets/"), "http://h:1/api/assets/");
});

/** A real HTTP backend on 127.0.0.1 that records what it receives. */
function startBackend(answer: (request: Request, body: unknown) => Response | Promise<Response>) {
  const received: { method: string; path: string; body: unknown; type: string | null }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = await request.json().catch(() => undefined);
    received.push({
      method: request.method,
      path: new URL(request.url).pathname,
      body,
      type: request.headers.get("content-type"),
    });
    return answer(request, body);
  });
  return { server, received, url: `http://127.0.0.1:${server.addr.port}` };
}

Deno.test("populate_backend() posts a valid asset and returns the backend's id", async () => {
  const backend = startBackend(() => Response.json({ uuid: "a-123" }, { status: 201 }));
  try {
    const { service: tools } = service({ backend: { url: backend.url, assetsPath: "/assets/" } });
    const asset = { name: "x" };
    assert.deepEqual(await tools.call("populate_backend", { asset }), {
      ok: true,
      asset_id: "a-123",
      backend_url: `${backend.url}/assets/`,
    });
    assert.deepEqual(backend.received, [
      { method: "POST", path: "/assets/", body: asset, type: "application/json" },
    ]);
  } finally {
    await backend.server.shutdown();
  }
});

Deno.test("populate_backend() sends URL credentials as basic auth and never echoes them", async () => {
  const authorizations: (string | null)[] = [];
  const backend = startBackend((request) => {
    authorizations.push(request.headers.get("authorization"));
    return Response.json({ id: "with-auth" });
  });
  try {
    const url = backend.url.replace("http://", "http://user:s3cret@");
    const { service: tools, logs } = service({ backend: { url } });
    const result = await tools.call("populate_backend", { asset: { name: "x" } });
    assert.deepEqual(result, {
      ok: true,
      asset_id: "with-auth",
      backend_url: `${backend.url}/synesthetic-assets/`,
    });
    assert.deepEqual(authorizations, [`Basic ${btoa("user:s3cret")}`]);
    assert.ok(!JSON.stringify([result, logs]).includes("s3cret"));
  } finally {
    await backend.server.shutdown();
  }
});

Deno.test("populate_backend() never posts an invalid asset while validate_first holds", async () => {
  const backend = startBackend(() => Response.json({ id: 1 }));
  try {
    const { service: tools } = service({ backend: { url: backend.url } });
    const invalid = { name: "" };
    assert.deepEqual(await tools.call("populate_backend", { asset: invalid }), {
      ok: false,
      reason: "validation_failed",
      errors: [{ path: "/name", msg: "expected non-empty string" }],
    });
    assert.equal(backend.received.length, 0);
    assert.deepEqual(
      await tools.call("populate_backend", { asset: invalid, validate_first: false }),
      {
        ok: true,
        asset_id: "1",
        backend_url: `${backend.url}/synesthetic-assets/`,
      },
    );
    assert.equal(backend.received.length, 1);
  } finally {
    await backend.server.shutdown();
  }
});

Deno.test("populate_backend() reports backend errors with status and detail, without retrying", async () => {
  const backend = startBackend(() => Response.json({ detail: "internal error" }, { status: 500 }));
  try {
    const { service: tools } = service({ backend: { url: backend.url } });
    assert.deepEqual(await tools.call("populate_backend", { asset: { name: "x" } }), {
      ok: false,
      reason: "backend_error",
      status: 500,
      detail: "internal error",
    });
    assert.equal(backend.received.length, 1, "no retries");
  } finally {
    await backend.server.shutdown();
  }
});

Deno.test("populate_backend() maps an unreachable backend to 503 network_unreachable", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close(); // nothing listens there now
  const { service: tools } = service({ backend: { url: `http://127.0.0.1:${port}` } });
  assert.deepEqual(await tools.call("populate_backend", { asset: { name: "x" } }), {
    ok: false,
    reason: "backend_error",
    status: 503,
    detail: "network_unreachable",
  });
});

Deno.test("populate_backend() gives up after its timeout", async () => {
  const release = Promise.withResolvers<void>();
  const backend = startBackend(async () => {
    await release.promise;
    return Response.json({ id: "late" });
  });
  try {
    const url = backend.url.replace("http://", "http://user:s3cret@");
    const { service: tools, logs } = service({ backend: { url, timeoutMs: 50 } });
    assert.deepEqual(await tools.call("populate_backend", { asset: { name: "x" } }), {
      ok: false,
      reason: "backend_error",
      status: 504,
      detail: "timeout",
    });
    assert.ok(logs.some((line) => line.includes("detail=timeout")));
    assert.ok(!logs.join("\n").includes("s3cret"), "no credentials in the log");
  } finally {
    release.resolve();
    await backend.server.shutdown();
  }
});

Deno.test("populate_backend() treats a success without an id as a backend error", async () => {
  const backend = startBackend(() => new Response("created", { status: 200 }));
  try {
    const { service: tools } = service({ backend: { url: backend.url } });
    const result = await tools.call("populate_backend", { asset: { name: "x" } });
    assert.equal(result.reason, "backend_error");
    assert.equal(result.status, 200);
  } finally {
    await backend.server.shutdown();
  }
});
