import assert from "node:assert/strict";
import { cosineTfidf } from "./cosine_tfidf.ts";

interface Fixture {
  a: string;
  b: string;
  /** scikit-learn's value; null where it raised "empty vocabulary". */
  cosine: number | null;
}

const FIXTURES: Fixture[] = JSON.parse(
  await Deno.readTextFile(new URL("./testdata/tfidf_fixtures.json", import.meta.url)),
);

Deno.test("cosineTfidf() matches scikit-learn's TfidfVectorizer() to 1e-9", () => {
  assert.ok(FIXTURES.length >= 30);
  for (const { a, b, cosine } of FIXTURES) {
    const ours = cosineTfidf(a, b);
    if (cosine === null) {
      // scikit-learn refuses an empty vocabulary; we say 1 for two token-less texts.
      assert.equal(ours, 1, JSON.stringify([a, b]));
      continue;
    }
    assert.ok(Math.abs(ours - cosine) <= 1e-9, `${JSON.stringify([a, b])}: ${ours} vs ${cosine}`);
  }
});

Deno.test("cosineTfidf() is symmetric and 0 against a token-less text", () => {
  assert.equal(cosineTfidf("alpha beta", "beta gamma"), cosineTfidf("beta gamma", "alpha beta"));
  assert.equal(cosineTfidf("alpha", "!!"), 0);
  assert.ok(Math.abs(cosineTfidf("same words", "same words") - 1) < 1e-12);
});

Deno.test("cosineTfidf() stays within [0, 1] where rounding would pass 1", () => {
  // Unclamped, each of these against itself gives 1.0000000000000002.
  for (const text of ["eps theta alpha", "iota beta eps", "gamma zeta iota"]) {
    assert.equal(cosineTfidf(text, text), 1, text);
  }
  for (const [a, b] of [["eps theta alpha", "theta alpha"], ["one two", "three four"]]) {
    const score = cosineTfidf(a, b);
    assert.ok(score >= 0 && score <= 1, `${a} / ${b}: ${score}`);
  }
});
