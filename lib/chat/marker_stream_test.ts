import assert from "node:assert/strict";
import { seededRandom } from "../../tests/fakes/random.ts";
import { MarkerStream, splitMarkers } from "./marker_stream.ts";

const TEXT = 'Hello <<<NOTES_JSON>>>{"set_goals":["a"]}<<<END_NOTES_JSON>>>there.' +
  '<<<TOOL_CALLS_JSON>>>[{"id":"t1","tool":"fs.list_dir","args":{}}]<<<END_TOOL_CALLS_JSON>>> Bye <<<';

function chunked(text: string, random: () => number): string[] {
  const chunks: string[] = [];
  let at = 0;
  while (at < text.length) {
    const size = 1 + Math.floor(random() * 12);
    chunks.push(text.slice(at, at + size));
    at += size;
  }
  return chunks;
}

Deno.test("splitMarkers() removes both block kinds and returns their payloads", () => {
  const { visible, blocks } = splitMarkers(TEXT);
  assert.equal(visible, "Hello there. Bye <<<");
  assert.deepEqual(blocks, [
    { kind: "notes", payload: '{"set_goals":["a"]}', closed: true },
    { kind: "tool_calls", payload: '[{"id":"t1","tool":"fs.list_dir","args":{}}]', closed: true },
  ]);
});

Deno.test("MarkerStream gives the same result for every chunking, never leaking a marker", () => {
  const expected = splitMarkers(TEXT);
  for (let seed = 1; seed <= 300; seed++) {
    const stream = new MarkerStream();
    let visible = "";
    const blocks = [];
    for (const chunk of chunked(TEXT, seededRandom(seed))) {
      const out = stream.push(chunk);
      assert.ok(!/<<<[A-Z]/.test(out.visible), `seed ${seed}: marker text leaked: ${out.visible}`);
      visible += out.visible;
      blocks.push(...out.blocks);
    }
    const last = stream.end();
    visible += last.visible;
    blocks.push(...last.blocks);
    assert.equal(visible, expected.visible, `seed ${seed}`);
    assert.deepEqual(blocks, expected.blocks, `seed ${seed}`);
  }
});

Deno.test("MarkerStream returns an unterminated block as not closed, hidden from the user", () => {
  const { visible, blocks } = splitMarkers('ok <<<TOOL_CALLS_JSON>>>[{"id":');
  assert.equal(visible, "ok ");
  assert.deepEqual(blocks, [{ kind: "tool_calls", payload: '[{"id":', closed: false }]);
});

Deno.test("MarkerStream shows plain text at once and holds back only what may begin a marker", () => {
  const stream = new MarkerStream();
  assert.deepEqual(stream.push("Hello"), { visible: "Hello", blocks: [] });
  assert.deepEqual(stream.push(" wor<"), { visible: " wor", blocks: [] });
  assert.deepEqual(stream.push("<x"), { visible: "<<x", blocks: [] });
  assert.deepEqual(stream.push("ld <<<NOT"), { visible: "ld ", blocks: [] });
  assert.deepEqual(stream.push('ES_JSON>>>{"a":1}<<<END_NOTES'), { visible: "", blocks: [] });
  assert.deepEqual(stream.push("_JSON>>>!"), {
    visible: "!",
    blocks: [{ kind: "notes", payload: '{"a":1}', closed: true }],
  });
  assert.deepEqual(stream.push("plain again"), { visible: "plain again", blocks: [] });
  assert.deepEqual(stream.end(), { visible: "", blocks: [] });
});
