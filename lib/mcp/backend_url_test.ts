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
