/**
 * Cosine similarity of two texts under TF-IDF, as scikit-learn's `TfidfVectorizer()` with
 * its defaults computes it when fitted on just these two documents: lowercase, tokens
 * `(?u)\b\w\w+\b`, raw term counts, smooth idf (`ln((1 + n) / (1 + df)) + 1`), l2 norm.
 * Matches scikit-learn to 1e-9 (fixtures in `testdata/tfidf_fixtures.json`, made by
 * `scripts/make_tfidf_fixtures.py`). Two texts with no token between them (where
 * scikit-learn raises "empty vocabulary") give 1 when both are empty of tokens, else 0.
 * The score is clamped to [0, 1]: rounding makes a text against itself 1.0000000000000002.
 */
export function cosineTfidf(a: string, b: string): number {
  const left = counts(a);
  const right = counts(b);
  if (left.size === 0 && right.size === 0) return 1;
  if (left.size === 0 || right.size === 0) return 0;
  const n = 2;
  const idf = (term: string) => {
    const df = (left.has(term) ? 1 : 0) + (right.has(term) ? 1 : 0);
    return Math.log((1 + n) / (1 + df)) + 1;
  };
  let dot = 0;
  let leftNorm = 0;
  let rightNorm = 0;
  for (const [term, count] of left) {
    const weight = count * idf(term);
    leftNorm += weight * weight;
    const other = right.get(term);
    if (other !== undefined) dot += weight * other * idf(term);
  }
  for (const [term, count] of right) {
    const weight = count * idf(term);
    rightNorm += weight * weight;
  }
  return Math.min(1, Math.max(0, dot / (Math.sqrt(leftNorm) * Math.sqrt(rightNorm))));
}

/**
 * scikit-learn's token pattern `(?u)\b\w\w+\b`: maximal runs of two or more word
 * characters, where Python's Unicode `\w` is what `str.isalnum()` accepts (letters and
 * numbers) plus the underscore.
 */
const TOKEN = /(?<![\p{L}\p{N}_])[\p{L}\p{N}_]{2,}(?![\p{L}\p{N}_])/gu;

function counts(text: string): Map<string, number> {
  const map = new Map<string, number>();
  for (const match of text.toLowerCase().matchAll(TOKEN)) {
    map.set(match[0], (map.get(match[0]) ?? 0) + 1);
  }
  return map;
}
