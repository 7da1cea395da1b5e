/**
 * A page on another local port against the chat gateway, in headless Chromium: the user has
 * opened the chat URL (its token cookie is set, `SameSite=Strict`), then a page served from
 * `http://127.0.0.1:<other port>/` opens the chat WebSocket with no token. The browser sends
 * the cookie (same site: ports do not count), so only the Origin check stands between that
 * page and the user's agent: it must refuse, and the chat page itself must keep working.
 * Skipped, with a message, where no Chromium is installed.
 */
import assert from "node:assert/strict";
import { findChromium, launchChromium } from "../lib/preview/mod.ts";
import { gatewayFixture } from "./fakes/chat_gateway.ts";

const CHROMIUM = findChromium(Deno.env.get("SYN_CHROMIUM"));
if (!CHROMIUM) {
  console.warn(
    "skipping the chat origin browser test: no Chromium installed (apt-get install chromium)",
  );
}

/** The other local site: one page, no script of its own (the test drives it). */
function otherSite(): { url: string; server: Deno.HttpServer; stop(): Promise<void> } {
  const stopping = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stopping.signal, onListen() {} },
    () =>
      new Response('<!doctype html><link rel="icon" href="data:,"><title>other</title>', {
        headers: { "content-type": "text/html; charset=utf-8" },
      }),
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/`,
    server,
    async stop() {
      stopping.abort();
      await server.finished;
    },
  };
}

/** What the page saw when it tried the socket: `open` and the replies, or how it failed. */
interface Attempt {
  opened: boolean;
  closeCode: number | null;
  received: string[];
}

/** Runs in the page: opens `target`, sends one message, collects for a while (8 s at most). */
function tryChatSocket(target: string): Promise<Attempt> {
  return new Promise((resolve) => {
    const attempt: Attempt = { opened: false, closeCode: null, received: [] };
    const socket = new WebSocket(target);
    const finish = () => {
      clearTimeout(timer);
      resolve(attempt);
    };
    const timer = setTimeout(() => {
      socket.close();
      finish();
    }, 8000);
    socket.onopen = () => {
      attempt.opened = true;
      socket.send(JSON.stringify({
        action: "message",
        version: "1.0.0",
        data: { content: "read me the secrets", mode: "reflect", correlation_id: "other-1" },
      }));
    };
    socket.onmessage = (message) => {
      attempt.received.push(String(message.data));
      if (String(message.data).includes('"event_type":"done"')) {
        socket.close();
        finish();
      }
    };
    socket.onclose = (event) => {
      attempt.closeCode = event.code;
      finish();
    };
  });
}

Deno.test({
  name:
    "chat gateway: a page on another loopback port cannot use the chat socket, the chat page can",
  ignore: !CHROMIUM,
  async fn() {
    await using fixture = await gatewayFixture({ answer: (prompt) => `You wrote: ${prompt}` });
    const other = otherSite();
    try {
      await using chromium = await launchChromium(CHROMIUM!);
      const page = await chromium.browser.newPage();
      // The user opens the printed URL: the page connects and the cookie is set.
      await page.goto(`${fixture.httpUrl}/?token=${fixture.token}&session=mine`);
      await page.waitForSelector("#status:text('connected')", { timeout: 10_000 });
      const cookies = await page.context().cookies(fixture.httpUrl);
      assert.ok(
        cookies.some((cookie) => cookie.name === `syn_token_${fixture.port}`),
        "the token cookie is set",
      );
      const sessionsBefore = fixture.gateway.sessionIds();
      // Then the page on another port tries the socket, no token in its URL.
      await page.goto(other.url);
      const target = `${fixture.url}/chat/kgent?session=victim`;
      const attempt = await page.evaluate(tryChatSocket, target);
      assert.equal(
        attempt.opened,
        false,
        `the other page's socket opened: ${JSON.stringify(attempt)}`,
      );
      assert.deepEqual(attempt.received, []);
      assert.deepEqual(fixture.gateway.sessionIds(), sessionsBefore, "a session was made for it");
      // The chat page, same origin, still works with the cookie alone.
      await page.goto(`${fixture.httpUrl}/?session=mine`);
      await page.waitForSelector("#status:text('connected')", { timeout: 10_000 });
      await page.fill("#input", "still here");
      await page.press("#input", "Enter");
      await page.waitForSelector(".msg.assistant:text('You wrote: still here')", {
        timeout: 10_000,
      });
    } finally {
      await other.stop();
    }
  },
});
