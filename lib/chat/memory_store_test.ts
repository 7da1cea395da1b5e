import assert from "node:assert/strict";
import { checkCitations, MemoryStore, retrievedMemoryBlock } from "./memory_store.ts";

Deno.test("MemoryStore ranks by BM25 and keeps stable ids", async () => {
  const store = MemoryStore.open(":memory:");
  const a = await store.add({
    session_id: "s",
    kind: "turn",
    text: "The shader uses a pulsing blue circle",
    ts: 1,
  });
  await store.add({
    session_id: "s",
    kind: "note",
    text: "User prefers red tones and slow tempo",
    ts: 2,
  });
  await store.add({ session_id: "s", kind: "turn", text: "blue blue blue circle circle", ts: 3 });
  assert.equal(
    await store.add({
      session_id: "s",
      kind: "turn",
      text: "The shader uses a pulsing blue circle",
      ts: 1,
    }),
    a,
  );
  const hits = store.search("pulsing shader");
  assert.equal(hits[0].id, a);
  assert.ok(hits[0].score > 0);
  assert.deepEqual(store.search("   "), []);
  assert.deepEqual(store.search('" OR 1=1; DROP TABLE memory; --'), []);
  assert.equal(store.get(a)?.text, "The shader uses a pulsing blue circle");
  store.close();
});

Deno.test("retrievedMemoryBlock() is the spec's block; citations are checked against it", () => {
  const block = retrievedMemoryBlock([{ id: "mem_ab", score: 0.4123, excerpt: "excerpt..." }]);
  assert.equal(
    block,
    "=== RETRIEVED_MEMORY ===\n- id=mem_ab score=0.412\n  excerpt...\n=== END_RETRIEVED_MEMORY ===",
  );
  assert.deepEqual(
    checkCitations("see [mem:mem_ab] and [mem:mem_zz] [mem:mem_ab]", new Set(["mem_ab"])),
    [
      { id: "mem_ab", valid: true },
      { id: "mem_zz", valid: false },
    ],
  );
});
