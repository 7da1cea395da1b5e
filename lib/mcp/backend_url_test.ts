import assert from "node:assert/strict";
import { fakeSchemaStore } from "../../tests/mcp_fake_store.ts";
import { backendAssetsUrl, ValidatorService } from "./validator_service.ts";

function serve(answer: (request: Request) => Response) {
  const hits: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    await request.body?.cancel();
    const url = new URL(request.url);
    hits.push(`${request.method} ${url.pathname}${url.search}`);
    return answer(request);
  });
  return { hits, url: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}

Deno.test("backendAssetsUrl() keeps a query after the path", () => {
  assert.equal(
    backendAssetsUrl("http://h:1/api?token=s3cret&x=1"),
    "http://h:1/api/synesthetic-assets/?token=s3cret&x=1",
  );
  assert.equal(backendAssetsUrl("http://h:1/?t=1", "/assets"), "http://h:1/assets?t=1");
});

Deno.test("populate_backend() with a token in the URL query posts to the right URL and never shows the token", async () => {
  const backend = serve(() => Response.json({ id: "a1" }, { status: 201 }));
  const logs: string[] = [];
  const service = new ValidatorService({
    store: fakeSchemaStore(),
    log: (line) => logs.push(line),
    backend: { url: `${backend.url}/api?token=TOKEN-s3cret-123`, assetsPath: "/assets/" },
  });
  const result = await service.call("populate_backend", {
    asset: { name: "x" },
    validate_first: false,
  });
  assert.deepEqual(result, { ok: true, asset_id: "a1", backend_url: `${backend.url}/api/assets/` });
  assert.deepEqual(backend.hits, ["POST /api/assets/?token=TOKEN-s3cret-123"]);
  assert.ok(!JSON.stringify([result, logs]).includes("s3cret"));
  await backend.close();
});

Deno.test("populate_backend() never follows a redirect to another host with the asset", async () => {
  const elsewhere = serve(() => Response.json({ id: "stolen" }));
  const backend = serve(() =>
    new Response(null, {
      status: 307,
      headers: { location: `http://localhost:${new URL(elsewhere.url).port}/x` },
    })
  );
  const service = new ValidatorService({
    store: fakeSchemaStore(),
    log: () => {},
    backend: { url: backend.url },
  });
  const result = await service.call("populate_backend", {
    asset: { name: "x" },
    validate_first: false,
  }) as Record<string, unknown>;
  assert.equal(result.ok, false);
  assert.match(String(result.detail), /redirected to http:\/\/localhost:\d+; not followed/);
  assert.deepEqual(elsewhere.hits, []);
  await backend.close();
  await elsewhere.close();
});

Deno.test("populate_backend() masks the backend URL's credentials a backend echoes: Basic, user, password, fragments", async () => {
  const user = "alice-backend";
  const password = "pa55-w0rd-long-secret";
  const basic = btoa(`${user}:${password}`);
  const seen: string[] = [];
  const backend = serve((request) => {
    const authorization = request.headers.get("authorization") ?? "";
    seen.push(authorization);
    const sent = authorization.replace(/^Basic /, "");
    return Response.json({
      detail: `rejected Authorization: ${authorization}; credentials ${sent} (${
        atob(sent)
      }) for user ${user}, password ${password}, ending …${password.slice(-10)}, b64 …${
        sent.slice(4, 20)
      }`,
    }, { status: 401 });
  });
  const logs: string[] = [];
  const port = new URL(backend.url).port;
  const service = new ValidatorService({
    store: fakeSchemaStore(),
    log: (line) => logs.push(line),
    backend: { url: `http://${user}:${password}@127.0.0.1:${port}/api/` },
  });
  const result = await service.call("populate_backend", {
    asset: { name: "x" },
    validate_first: false,
  }) as Record<string, unknown>;
  await backend.close();
  // The credentials really travelled: the backend got them as HTTP Basic.
  assert.deepEqual(seen, [`Basic ${basic}`]);
  assert.equal(result.ok, false);
  assert.equal(result.status, 401);
  assert.match(String(result.detail), /^rejected Authorization: \*\*\*redacted\*\*\*/);
  // Nothing to connect to: the error's log line names no credential either.
  const closed = new ValidatorService({
    store: fakeSchemaStore(),
    log: (line) => logs.push(line),
    backend: { url: `http://${user}:${password}@127.0.0.1:${port}/api/`, timeoutMs: 2000 },
  });
  const unreachable = await closed.call("populate_backend", {
    asset: { name: "x" },
    validate_first: false,
  });
  assert.equal(unreachable.ok, false);
  const shown = JSON.stringify([result, unreachable, logs]);
  for (const secret of [basic, user, password, basic.slice(4, 20), password.slice(-10)]) {
    assert.equal(shown.includes(secret), false, `${secret} shown in ${shown}`);
  }
});
