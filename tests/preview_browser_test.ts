/**
 * The preview page in headless Chromium (playwright-core, Debian's chromium), for every
 * example asset, every conformance example and an asset from every engine: the canvas is
 * not blank, pixels change when the mouse drags or a slider moves (and only then: the
 * clock is frozen), a click builds a running audio graph that renders sound, haptic pulses
 * register, nothing is logged as an error; a broken shader shows its line, an invalid
 * asset shows its errors and draws nothing. Skipped, with a message, without Chromium.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import {
  findChromium,
  launchChromium,
  loadPageFiles,
  type PreviewDocument,
  previewDocument,
  startPreviewServer,
} from "../lib/preview/mod.ts";
import { loadSchemaStore } from "../lib/schema/mod.ts";
import { formatValue } from "../lib/preview/page/parameters.js";
import { runSyn } from "./fakes/cli_io.ts";
import { exists, sharedPath } from "./fakes/shared.ts";

const CHROMIUM = findChromium(Deno.env.get("SYN_CHROMIUM"));
if (!CHROMIUM) {
  console.warn(
    "skipping the preview browser tests: no Chromium installed (apt-get install chromium)",
  );
}

/** Parsed JSON of any shape, as the examples and assets are. */
// deno-lint-ignore no-explicit-any
type Json = any;

const OWN_EXAMPLES = new URL("../schemas/examples/", import.meta.url);
const CONFORMANCE = sharedPath("conformance/synesthetic-schemas-0.7.3/examples");

interface Sample {
  drawn: boolean;
  lit?: number;
  colours?: number;
  checksum?: number;
}

interface Hooks {
  state: string;
  problems: string[];
  frames: number;
  audio: { state: string; nodes: number; notes: number } | null;
  haptic: { pulses: number; vibrate: boolean };
  sample(): Sample;
  freeze(seconds: number | null): void;
  renderOffline(seconds?: number): Promise<number>;
  parameter(key: string): unknown;
}

/** Calls into the page's `synPreview` probe. */
function probe<T>(page: Page, fn: (hooks: Hooks, arg: unknown) => T, arg?: unknown): Promise<T> {
  return page.evaluate(
    ([source, value]) => {
      const hooks = (globalThis as unknown as { synPreview: Hooks }).synPreview;
      return new Function("hooks", "arg", `return (${source})(hooks, arg)`)(hooks, value);
    },
    [fn.toString(), arg] as const,
  ) as Promise<T>;
}

async function readJsonFiles(folder: string): Promise<{ name: string; document: unknown }[]> {
  const names = [...Deno.readDirSync(folder)].filter((entry) => entry.name.endsWith(".json"))
    .map((entry) => entry.name).sort();
  return await Promise.all(names.map(async (name) => ({
    name,
    document: JSON.parse(await Deno.readTextFile(join(folder, name))),
  })));
}

/** Assets made by `syn generate` with every engine (external ones in mock mode). */
async function engineAssets(): Promise<{ name: string; document: unknown }[]> {
  const dir = await Deno.makeTempDir({ prefix: "syn-preview-engines-" });
  const runs = [
    ["deterministic", "a pulsing blue circle"],
    ["deterministic", "a spinning red star with a deep drone"],
    ["deterministic", "calm green waves at dusk"],
    ["gemini", "angry red fire"],
    ["openai", "neon rain"],
    ["anthropic", "a glass bell in fog"],
  ];
  try {
    return await Promise.all(runs.map(async ([engine, prompt], index) => {
      const out = join(dir, `out${index}`);
      const result = await runSyn([
        "generate",
        `--engine=${engine}`,
        prompt,
        "--out",
        out,
        "--log-dir",
        join(dir, `logs${index}`),
      ]);
      assert.equal(result.code, 0, `${engine}: ${result.stderr}`);
      const path = JSON.parse(result.stdout).asset_path as string;
      return { name: `${engine}: ${prompt}`, document: JSON.parse(await Deno.readTextFile(path)) };
    }));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function brokenShaderAsset(base: Record<string, Json>): Record<string, Json> {
  const asset = structuredClone(base);
  asset.shader.fragment_shader = [
    "uniform vec2 u_resolution;",
    "void main() {",
    "  vec3 colour = vec3(1.0, 0.5, 0.0)",
    "  gl_FragColor = vec4(colour, 1.0);",
    "}",
  ].join("\n");
  return asset;
}

/** Opens document `index` on a fresh page, collecting console errors and page errors. */
async function openDocument(
  browser: import("playwright-core").Browser,
  url: string,
  index: number,
): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" && !/GPU stall due to ReadPixels/.test(message.text())) {
      errors.push(message.text());
    }
  });
  page.on("pageerror", (error) => errors.push(String(error)));
  await page.goto(`${url}?doc=${index}&w=320&h=240`);
  const deadline = Date.now() + 20_000;
  while ((await probe(page, (hooks) => hooks?.state ?? "loading")) === "loading") {
    assert.ok(Date.now() < deadline, `document ${index} did not finish loading: ${errors}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { page, errors };
}

/** A left-button drag across the canvas along x. */
async function drag(page: Page, dx: number, dy: number) {
  const box = (await page.locator("#canvas").boundingBox())!;
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + dx, y + dy, { steps: 8 });
  await page.mouse.up();
}

/** The first mouse mapping that needs only the left button and drives a shader uniform. */
function mouseMapping(view: Record<string, Json>): { key: string; axis: string } | undefined {
  for (const control of view.control?.control_parameters ?? []) {
    const key = String(control.parameter);
    const name = key.replace(/^shader\./, "");
    const uniform = (view.shader?.uniforms ?? []).some((u: { name: string }) => u.name === name);
    if (!uniform) continue;
    for (const mapping of control.mappings ?? []) {
      const combo = mapping.combo ?? {};
      const axis = mapping.action?.axis;
      if ((combo.keys ?? []).length === 0 && !combo.wheel && axis !== "mouse.wheel") {
        if ((combo.mouseButtons ?? ["left"]).every((b: string) => b === "left")) {
          return { key: `shader.${name}`, axis };
        }
      }
    }
  }
  return undefined;
}

async function checkRenderable(page: Page, document: PreviewDocument, errors: string[]) {
  const view = document.view as Record<string, Json>;
  assert.equal(
    await probe(page, (hooks) => hooks.state),
    "ready",
    `${await probe(page, (h) => h.problems)}`,
  );
  if (view.shader) {
    await probe(page, (hooks) => hooks.freeze(1.25));
    const first = await probe(page, (hooks) => hooks.sample());
    assert.equal(first.drawn, true);
    assert.ok(first.lit! > 0, "the canvas is blank");
    const again = await probe(page, (hooks) => hooks.sample());
    assert.equal(again.checksum, first.checksum, "with the clock frozen, frames are equal");
    const mapping = mouseMapping(view);
    if (mapping) {
      const before = await probe(page, (hooks, key) => hooks.parameter(String(key)), mapping.key);
      await drag(page, mapping.axis === "mouse.x" ? 150 : 0, mapping.axis === "mouse.y" ? -150 : 0);
      const after = await probe(page, (hooks, key) => hooks.parameter(String(key)), mapping.key);
      assert.notEqual(after, before, `dragging did not move ${mapping.key}`);
      const moved = await probe(page, (hooks) => hooks.sample());
      assert.notEqual(moved.checksum, first.checksum, `dragging did not change the pixels`);
      const pulses = (await probe(page, (hooks) => hooks.haptic)).pulses;
      const pressRule = (view.rule_bundle?.rules ?? []).some((rule: Json) =>
        ["mouse_down", "pointer_down"].includes(rule.trigger?.type) &&
        (rule.effects ?? []).some((effect: Json) =>
          String(effect.target ?? rule.target).startsWith("haptic.") &&
          ["set", "add", "increment"].includes(effect.op)
        )
      );
      assert.equal(pulses > 0, pressRule, "a press rule on the haptic fires on a press");
    }
    const slider = page.locator('input[type="range"][data-key^="shader."]');
    if (await slider.count() > 0) {
      const before = await probe(page, (hooks) => hooks.sample());
      let changed = false;
      for (let i = 0; i < await slider.count() && !changed; i++) {
        const input = slider.nth(i);
        for (const end of ["max", "min"]) {
          await input.evaluate((element, which) => {
            const range = element as unknown as {
              value: string;
              min: string;
              max: string;
              dispatchEvent(event: unknown): boolean;
            };
            range.value = which === "max" ? range.max : range.min;
            range.dispatchEvent(new Event("input", { bubbles: true }));
          }, end);
          const after = await probe(page, (hooks) => hooks.sample());
          if (after.checksum !== before.checksum) changed = true;
        }
      }
      assert.ok(changed, "no shader slider changed the pixels");
    }
  }
  if (view.tone) {
    assert.equal(await probe(page, (hooks) => hooks.audio), null, "no audio before a click");
    await page.locator("#play").click();
    const audio = await probe(page, (hooks) => hooks.audio);
    assert.equal(audio?.state, "running");
    assert.ok(audio!.nodes >= 3, `audio graph has ${audio?.nodes} nodes`);
    const rms = await probe(page, (hooks) => hooks.renderOffline(1));
    assert.ok(rms > 0.001, `the tone renders silence (rms ${rms})`);
  }
  if (view.haptic) {
    const before = (await probe(page, (hooks) => hooks.haptic)).pulses;
    await page.locator("#pulse").click();
    assert.equal((await probe(page, (hooks) => hooks.haptic)).pulses, before + 1);
  }
  assert.deepEqual(errors, [], "console errors");
}

Deno.test({
  name: "the preview page renders, reacts and sounds in headless Chromium",
  ignore: !CHROMIUM,
  async fn(t) {
    const store = await loadSchemaStore();
    const inputs = [
      ...(await readJsonFiles(OWN_EXAMPLES.pathname)).map((e) => ({ ...e, name: `own ${e.name}` })),
      ...(exists(CONFORMANCE) ? await readJsonFiles(CONFORMANCE) : []),
      ...await engineAssets(),
    ];
    if (!exists(CONFORMANCE)) console.warn("conformance examples skipped: ../shared is missing");
    const baseline = inputs.find((input) => input.name === "own canonical-baseline.json")!;
    const documents = inputs.map((input) => previewDocument(store, input.name, input.document));
    const broken = documents.length;
    documents.push(previewDocument(store, "broken", brokenShaderAsset(baseline.document as Json)));
    const invalid = documents.length;
    const { shader: _, ...noShader } = baseline.document as Record<string, unknown>;
    documents.push(previewDocument(store, "invalid", { ...noShader, shader: { name: "x" } }));
    await using server = startPreviewServer({ files: await loadPageFiles(), documents });
    await using chromium = await launchChromium(CHROMIUM!);
    for (const [index, document] of documents.entries()) {
      if (index === broken || index === invalid) continue;
      await t.step(document.name, async () => {
        assert.ok(document.ok, `${document.name}: ${JSON.stringify(document.errors)}`);
        const { page, errors } = await openDocument(chromium.browser, server.url, index);
        try {
          await checkRenderable(page, document, errors);
        } finally {
          await page.close();
        }
      });
    }
    await t.step("a broken shader shows its error on the asset's own line", async () => {
      const { page } = await openDocument(chromium.browser, server.url, broken);
      assert.equal(await probe(page, (hooks) => hooks.state), "shader-error");
      const problems = await probe(page, (hooks) => hooks.problems);
      assert.ok(
        problems.some((line) => line.startsWith("fragment shader, line 4:")),
        `${problems}`,
      );
      const text = await page.locator("#problems").innerText();
      assert.match(text, /The shader does not compile/);
      assert.match(text, /4 \| gl_FragColor = vec4\(colour, 1\.0\);/);
      await page.close();
    });
    await t.step("an invalid asset is listed with its errors and not drawn", async () => {
      const { page } = await openDocument(chromium.browser, server.url, invalid);
      assert.equal(await probe(page, (hooks) => hooks.state), "invalid");
      const text = await page.locator("#problems").innerText();
      assert.match(text, /not a valid synesthetic-asset/);
      assert.match(text, /\/shader: must have required property 'fragment_shader'/);
      assert.equal(await page.locator("#canvas").isVisible(), false);
      assert.equal(await probe(page, (hooks) => hooks.frames), 0);
      await page.close();
    });
  },
});

/** What a still of a panel shows: each slider's value and where it sits, the sections seen. */
interface PanelLayout {
  values: {
    key: string;
    text: string;
    scrollWidth: number;
    clientWidth: number;
    right: number;
    bottom: number;
  }[];
  empty: string[];
}

function panelLayout(page: Page): Promise<PanelLayout> {
  return page.evaluate(() => {
    // deno-lint-ignore no-explicit-any
    const document = (globalThis as any).document;
    // deno-lint-ignore no-explicit-any
    const visible = (element: any) => element.checkVisibility();
    // deno-lint-ignore no-explicit-any
    const values = [...document.querySelectorAll(".slider")].filter(visible).map((row: any) => {
      const output = row.querySelector("output");
      return {
        key: row.querySelector("input").dataset.key,
        text: output.textContent,
        scrollWidth: output.scrollWidth,
        clientWidth: output.clientWidth,
        right: output.getBoundingClientRect().right,
        bottom: output.getBoundingClientRect().bottom,
      };
    });
    // A section shows something when an item, a slider or a summary of what the part does
    // is visible ("No tone in this document." says there is nothing).
    // deno-lint-ignore no-explicit-any
    const shows = (section: any) =>
      // deno-lint-ignore no-explicit-any
      [...section.querySelectorAll("li, .slider, p")].some((item: any) =>
        visible(item) && item.textContent.trim() !== "" &&
        !/^No .* in this document\.$/.test(item.textContent.trim())
      );
    const empty = [...document.querySelectorAll("#panel section")]
      // deno-lint-ignore no-explicit-any
      .filter((section: any) => visible(section) && !shows(section))
      // deno-lint-ignore no-explicit-any
      .map((section: any) => section.querySelector("h2").textContent);
    return { values, empty };
  });
}

Deno.test({
  name: "a still of a panel shows every value whole and no empty section",
  ignore: !CHROMIUM,
  async fn(t) {
    const store = await loadSchemaStore();
    const panels = (await readJsonFiles(OWN_EXAMPLES.pathname))
      .map((input) => previewDocument(store, input.name, input.document))
      .filter((document) => document.ok && !(document.view as Json).shader);
    assert.ok(panels.length >= 3, "the examples hold documents without a shader");
    await using server = startPreviewServer({ files: await loadPageFiles(), documents: panels });
    await using chromium = await launchChromium(CHROMIUM!);
    for (const [width, height] of [[800, 600], [1200, 500], [320, 240]]) {
      for (const [index, document] of panels.entries()) {
        await t.step(`${document.name} at ${width}x${height}`, async () => {
          // The viewport renderStill uses: 32 px wider and taller than the still.
          const page = await chromium.browser.newPage({
            viewport: { width: width + 32, height: height + 32 },
          });
          try {
            await page.goto(`${server.url}?doc=${index}&still=1&t=0&w=${width}&h=${height}`);
            await page.waitForFunction(
              () => (globalThis as unknown as { synPreview: Hooks }).synPreview.state !== "loading",
              {
                timeout: 20_000,
              },
            );
            const layout = await panelLayout(page);
            assert.deepEqual(layout.empty, [], "sections without items");
            for (const value of layout.values) {
              const shown = await probe(
                page,
                (hooks, key) => hooks.parameter(String(key)),
                value.key,
              );
              assert.equal(value.text, formatValue(shown), value.key);
              assert.ok(value.scrollWidth <= value.clientWidth, `${value.key} overflows its box`);
              assert.ok(
                value.right <= width,
                `${value.key} ends at ${value.right} px, past ${width}`,
              );
              assert.ok(
                value.bottom <= height,
                `${value.key} ends at ${value.bottom} px, below ${height}`,
              );
            }
          } finally {
            await page.close();
          }
        });
      }
    }
  },
});
