/**
 * The chat page in headless Chromium (playwright-core, Debian's chromium), opened the way a
 * user opens it — the printed URL with its token: type and see the reply stream in, stop
 * a reply, reload (without the token: the cookie carries it, on the page and on its
 * WebSocket) in the middle of a reply and see it complete; a crafted `?agent=` cannot make
 * it join a session other than the one it shows. Skipped, with a message, where no
 * Chromium is installed.
 */
import assert from "node:assert/strict";
import { findChromium, launchChromium } from "../lib/preview/mod.ts";
import { type GatewayFixture, gatewayFixture } from "./fakes/chat_gateway.ts";
import { waitUntil } from "./fakes/wait_until.ts";

const CHROMIUM = findChromium(Deno.env.get("SYN_CHROMIUM"));
if (!CHROMIUM) {
  console.warn(
    "skipping the chat page browser tests: no Chromium installed (apt-get install chromium)",
  );
}

const LONG = "The quick brown fox jumps over the lazy dog. ".repeat(12).trim();

async function withPage(
  fn: (
    page: import("playwright-core").Page,
    url: string,
    errors: string[],
    fixture: GatewayFixture,
  ) => Promise<void>,
  frameDelayMs = 0,
  query = "session=page1",
) {
  await using fixture = await gatewayFixture({
    answer: (prompt) => (prompt.includes("long") ? LONG : `Hello! You wrote: ${prompt}`),
    frameDelayMs,
    chunkSize: 3,
  });
  await using chromium = await launchChromium(CHROMIUM!);
  const page = await chromium.browser.newPage();
  const errors: string[] = [];
  page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
  page.on("pageerror", (error) => errors.push(String(error)));
  // What the user opens: the printed URL, token included.
  await page.goto(`${fixture.httpUrl}/?token=${fixture.token}&${query}`);
  await page.waitForSelector("#status:text('connected')", { timeout: 10_000 });
  const url = `${fixture.httpUrl}/?${query}`;
  assert.equal(page.url(), url, "the token stays out of the address bar");
  await fn(page, url, errors, fixture);
}

const TEST = { ignore: !CHROMIUM };
// Checks poll from the test side (waitUntil): the page's CSP forbids evaluating strings in it.

async function assistantTexts(page: import("playwright-core").Page): Promise<string[]> {
  return await page.locator(".msg.assistant").allTextContents();
}

Deno.test({
  ...TEST,
  name: "chat page: type a message and see the reply stream in",
  async fn() {
    await withPage(async (page, _url, errors) => {
      await page.fill("#input", "hi there");
      await page.press("#input", "Enter");
      await waitUntil(
        async () => (await assistantTexts(page))[0] === "Hello! You wrote: hi there",
        "the reply",
      );
      assert.equal(await page.textContent(".msg.user"), "hi there");
      assert.deepEqual(errors, []);
    });
  },
});

Deno.test({
  ...TEST,
  name: "chat page: the stop button stops the reply",
  async fn() {
    await withPage(async (page, _url, errors) => {
      await page.fill("#input", "tell me something long");
      await page.press("#input", "Enter");
      await waitUntil(
        async () => ((await assistantTexts(page))[0] ?? "").length > 10,
        "the first text",
      );
      await page.click("#stop");
      await page.waitForSelector(".msg.meta:text('stopped')", { timeout: 10_000 });
      const text = await page.textContent(".msg.assistant") ?? "";
      assert.ok(
        text.length > 0 && text.length < LONG.length,
        `stopped text: ${text.length} of ${LONG.length}`,
      );
      assert.equal(await page.isDisabled("#stop"), true);
      assert.deepEqual(errors, []);
    }, 20);
  },
});

Deno.test({
  ...TEST,
  name: "chat page: a reload in the middle of a reply resumes it to the end",
  async fn() {
    await withPage(async (page, url, errors, fixture) => {
      await page.fill("#input", "a long answer please");
      await page.press("#input", "Enter");
      await waitUntil(
        async () => ((await assistantTexts(page))[0] ?? "").length > 5,
        "the first text",
      );
      const partial = await page.textContent(".msg.assistant") ?? "";
      assert.ok(partial.length < LONG.length, "the reply finished before the reload");
      // No token in this address: the page and its WebSocket upgrade carry the cookie.
      const before = fixture.upgradeChannels.length;
      await page.goto(url);
      await waitUntil(
        async () => (await assistantTexts(page)).includes(LONG),
        "the resumed reply",
        { timeoutMs: 20_000 },
      );
      assert.equal(await page.textContent(".msg.user"), "a long answer please");
      assert.deepEqual(errors, []);
      assert.deepEqual(fixture.upgradeChannels.slice(before), ["cookie"], "the upgrade's token");
    }, 20);
  },
});

Deno.test({
  ...TEST,
  name: "chat page: a crafted ?agent= cannot hide the session it joins",
  async fn() {
    await withPage(
      async (page, _url, _errors, fixture) => {
        assert.equal(await page.textContent("#session"), "session mine");
        assert.deepEqual(fixture.gateway.sessionIds(), ["mine"]);
        assert.match(await page.textContent(".msg.error") ?? "", /not an agent name/);
      },
      0,
      "session=mine&agent=kgent%3Fsession%3Dvictim%26",
    );
  },
});
