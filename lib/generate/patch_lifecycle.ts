/**
 * The patch lifecycle (preview, apply, rate). Its code and `lib/patch` load at the first
 * call, by a computed specifier: `generate` never evaluates them, and `deno run` does not
 * read their graph before a command starts. `deno compile` embeds the implementation by
 * name (scripts/compile_options.ts).
 */
import type * as Lifecycle from "./_patch_lifecycle.ts";

export type { PatchDeps, PatchRecord, RatingRecord } from "./_patch_lifecycle.ts";

function lifecycle(): Promise<typeof Lifecycle> {
  return import(new URL("./_patch_lifecycle.ts", import.meta.url).href);
}

/** Applies a patch in memory, validates the result and logs a `preview` record; writes nothing else. */
export async function previewPatch(
  ...args: Parameters<typeof Lifecycle.previewPatch>
): ReturnType<typeof Lifecycle.previewPatch> {
  return (await lifecycle()).previewPatch(...args);
}

/**
 * Applies a patch, validates the result through the service and writes it atomically to
 * `outputPath` only when valid; logs an `apply` record either way.
 */
export async function applyPatch(
  ...args: Parameters<typeof Lifecycle.applyPatch>
): ReturnType<typeof Lifecycle.applyPatch> {
  return (await lifecycle()).applyPatch(...args);
}

/** Records a 1–5 rating of an asset or a patch (an array is a patch) with an optional note. */
export async function rateTarget(
  ...args: Parameters<typeof Lifecycle.rateTarget>
): ReturnType<typeof Lifecycle.rateTarget> {
  return (await lifecycle()).rateTarget(...args);
}
