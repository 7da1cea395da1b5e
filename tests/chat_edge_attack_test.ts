/**
 * The gateway as a browser on another site, a rebound DNS name or a stranger on the
 * network would reach it: every refusal comes from the edge before the gateway does any
 * work, and the right token is accepted by each of its channels.
 */
import assert from "node:assert/strict";
import { gatewayFixture } from "./fakes/chat_gateway.ts";

/** The status line of a raw WebSocket upgrade with the given extra headers and query. */
async function upgradeStatus(
  port: number,
  options: { host?: string; origin?: string; query?: string; headers?: string[] },
): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const head = [
      `GET /chat/kgent?session=victim${options.query ?? ""} HTTP/1.1`,
      `Host: ${options.host ?? `127.0.0.1:${port}`}`,
      "Upgrade: websocket",
      "Connection: Upgrade",
      `Sec-WebSocket-Key: ${btoa("edge-attack-key!")}`,
      "Sec-WebSocket-Version: 13",
      ...(options.origin ? [`Origin: ${options.origin}`] : []),
      ...(options.headers ?? []),
      "",
      "",
    ].join("\r\n");
    await conn.write(new TextEncoder().encode(head));
    const buffer = new Uint8Array(4096);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = await Promise.race([
      conn.read(buffer),
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), 5000))),
    ]);
    clearTimeout(timer);
    const text = new TextDecoder().decode(buffer.subarray(0, read ?? 0));
    return text.split("\r\n")[0];
  } finally {
    conn.close();
  }
}

Deno.test({
  name: "gateway edge: a rebound Host is refused (421) even with a matching Origin and the token",
  async fn() {
    await using fixture = await gatewayFixture();
    const rebound = `evil.example:${fixture.port}`;
    assert.match(
      await upgradeStatus(fixture.port, {
        host: rebound,
        origin: `http://${rebound}`,
        query: `&token=${fixture.token}`,
      }),
      /^HTTP\/1\.1 421 /,
    );
    assert.equal(fixture.gateway.sessionCount, 0, "the gateway did work for a refused request");
  },
});

Deno.test({
  name: "gateway edge: a cross-site Origin is refused (403); its own and no Origin are served",
  async fn() {
    await using fixture = await gatewayFixture();
    const query = `&token=${fixture.token}`;
    const port = fixture.port;
    assert.match(
      await upgradeStatus(port, { origin: "http://evil.example", query }),
      /^HTTP\/1\.1 403 /,
    );
    assert.match(await upgradeStatus(port, { origin: "null", query }), /^HTTP\/1\.1 403 /);
    assert.match(
      await upgradeStatus(port, { origin: `http://127.0.0.1:${port}`, query }),
      /^HTTP\/1\.1 101 /,
    );
    assert.match(
      await upgradeStatus(port, { origin: `http://localhost:${port}`, query }),
      /^HTTP\/1\.1 101 /,
    );
    assert.match(await upgradeStatus(port, { query }), /^HTTP\/1\.1 101 /);
  },
});

Deno.test({
  name: "gateway edge: no token, a wrong token, a same-length wrong token are 401 with no body",
  async fn() {
    await using fixture = await gatewayFixture();
    const wrong = fixture.token.slice(0, -1) + (fixture.token.endsWith("0") ? "1" : "0");
    for (const query of ["", "&token=nope", `&token=${wrong}`]) {
      assert.match(await upgradeStatus(fixture.port, { query }), /^HTTP\/1\.1 401 /, query);
    }
    for (const path of ["/", "/health", "/chat/kgent?session=a"]) {
      for (const headers of [{}, { authorization: `Bearer ${wrong}` }] as HeadersInit[]) {
        const response = await fetch(`${fixture.httpUrl}${path}`, { headers });
        assert.equal(response.status, 401, path);
        assert.equal(await response.text(), "", "a refusal says nothing");
      }
    }
    assert.equal(fixture.gateway.sessionCount, 0);
  },
});

Deno.test({
  name: "gateway edge: the token is accepted by header, cookie and query",
  async fn() {
    await using fixture = await gatewayFixture();
    const { port, token } = fixture;
    assert.match(
      await upgradeStatus(port, { headers: [`Authorization: Bearer ${token}`] }),
      /^HTTP\/1\.1 101 /,
    );
    assert.match(
      await upgradeStatus(port, { headers: [`Cookie: syn_token_${port}=${token}`] }),
      /^HTTP\/1\.1 101 /,
    );
    assert.match(await upgradeStatus(port, { query: `&token=${token}` }), /^HTTP\/1\.1 101 /);
    const page = await fetch(`${fixture.httpUrl}/?token=${token}`);
    assert.equal(page.status, 200);
    await page.body?.cancel();
    const cookie = page.headers.get("set-cookie") ?? "";
    assert.match(cookie, new RegExp(`^syn_token_${port}=${token}; .*HttpOnly.*SameSite=Strict`));
    const again = await fetch(`${fixture.httpUrl}/`, { headers: { cookie: cookie.split(";")[0] } });
    assert.equal(again.status, 200, "a reload with the cookie is served");
    await again.body?.cancel();
  },
});
