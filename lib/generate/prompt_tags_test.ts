import assert from "node:assert/strict";
import { extractFeatures, MAX_TAG_CHARS, MAX_TAGS } from "./_prompt_features.ts";
import { generateDeterministic } from "./generate_deterministic.ts";

const LONG_WORD = "w".repeat(100_000);

function assertCapped(tags: readonly string[]) {
  assert.ok(tags.length <= MAX_TAGS, `${tags.length} tags`);
  for (const tag of tags) assert.ok(Array.from(tag).length <= MAX_TAG_CHARS, tag.slice(0, 60));
}

Deno.test("extractFeatures() takes no tag word longer than MAX_TAG_CHARS, and at most MAX_TAGS", () => {
  const features = extractFeatures(`a ${LONG_WORD} blue circle`);
  assert.deepEqual(features.tagWords, ["blue", "circle"]);
  const many = Array.from({ length: 30 }, (_, index) => `word${index}x`).join(" ");
  const tagWords = extractFeatures(many).tagWords;
  assert.equal(tagWords.length, MAX_TAGS);
  assert.deepEqual(tagWords.slice(0, 2), ["word0x", "word1x"]);
  // A word of exactly the limit (in code points, not UTF-16 units) is still a tag.
  const edge = "é".repeat(MAX_TAG_CHARS);
  assert.deepEqual(extractFeatures(`${edge} 🌊`).tagWords, [edge]);
  assert.deepEqual(extractFeatures(`${"ж".repeat(MAX_TAG_CHARS + 1)}`).tagWords, []);
});

Deno.test("generateDeterministic() stores a 100,000-character prompt word once, not again as a tag", () => {
  const prompt = `a ${LONG_WORD} blue circle`;
  const asset = generateDeterministic(prompt, { seed: 1 });
  const tags = asset.meta_info.tags;
  assertCapped(tags);
  assert.ok(tags.includes("blue"));
  assert.ok(!tags.some((tag) => tag.includes("wwww")));
  for (const section of [asset.shader, asset.tone, asset.haptic, asset.control]) {
    const sectionTags = (section as { meta_info?: { tags?: string[] } } | undefined)?.meta_info
      ?.tags;
    if (sectionTags) assertCapped(sectionTags);
  }
});
