/**
 * The chat page in headless Chromium (playwright-core, Debian's chromium): type and see
 * the reply stream in, stop a reply, reload in the middle of a reply and see it complete.
 * Skipped, with a message, where no Chromium is installed.
 */
import assert from "node:assert/strict";
import { findChromium, launchChromium } from "../lib/preview/mod.ts";
import { gatewayFixture } from "./fakes/chat_gateway.ts";

const CHROMIUM = findChromium((name) => Deno.env.get(name));
if (!CHROMIUM) {
  console.warn(
    "skipping the chat page browser tests: no Chromium installed (apt-get install chromium)",
  );
}

const LONG = "The quick brown fox jumps over the lazy dog. ".repeat(12).trim();

async function withPage(
  fn: (page: import("playwright-core").Page, url: string, errors: string[]) => Promise<void>,
  frameDelayMs = 0,
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
  const url = fixture.url.replace("ws:", "http:") + "/?session=page1";
  await page.goto(url);
  await page.waitForSelector("#status:text('connected')", { timeout: 10_000 });
  await fn(page, url, errors);
}

const TEST = { sanitizeResources: false, sanitizeOps: false, ignore: !CHROMIUM };

/** Polls from the test side: the page's CSP forbids evaluating strings in it, rightly. */
async function until(check: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

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
      await until(
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
      await until(
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
    await withPage(async (page, url, errors) => {
      await page.fill("#input", "a long answer please");
      await page.press("#input", "Enter");
      await until(async () => ((await assistantTexts(page))[0] ?? "").length > 5, "the first text");
      const partial = await page.textContent(".msg.assistant") ?? "";
      assert.ok(partial.length < LONG.length, "the reply finished before the reload");
      await page.goto(url);
      await until(
        async () => (await assistantTexts(page)).includes(LONG),
        "the resumed reply",
        20_000,
      );
      assert.equal(await page.textContent(".msg.user"), "a long answer please");
      assert.deepEqual(errors, []);
    }, 20);
  },
});
