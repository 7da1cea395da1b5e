/**
 * Runs `work` over `items` with at most `jobs` running at once; the results in the items'
 * order. A rejection rejects the whole (the other workers finish the item in hand).
 *
 * ```ts
 * const sizes = await mapBounded(["a", "b", "c"], (name) => Promise.resolve(name.length), {
 *   jobs: 2,
 * });
 * ```
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  work: (item: T, index: number) => Promise<R>,
  options: { jobs: number },
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index], index);
    }
  };
  const workers = Math.max(1, Math.min(Math.floor(options.jobs) || 1, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}
