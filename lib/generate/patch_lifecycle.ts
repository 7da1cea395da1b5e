/** The patch lifecycle: preview, apply and rate, each logged to the Labs logs. */
import { critiqueAsset } from "./critique_asset.ts";
import { type Clock, errorMessage, SynError, writeFileAtomic } from "../core/mod.ts";
import type { ValidatorClient, ValidatorVerdict } from "../mcp/mod.ts";
import {
  apply,
  diff,
  type DiffOperation,
  PatchError,
  type PatchOperation,
  validatePatch,
} from "../patch/mod.ts";
import { ASSET_SCHEMA } from "./asset.ts";
import { contentId } from "./content_id.ts";
import type { LabsLog } from "./labs_log.ts";

/** The world the patch lifecycle touches. */
export interface PatchDeps {
  validator: ValidatorClient;
  log: LabsLog;
  clock: Clock;
  /** Defaults to core `writeFileAtomic`. */
  writeFile?: (path: string, text: string) => Promise<void>;
}

/** A `patches.jsonl` record of a preview or an apply. */
export interface PatchRecord {
  ts: string;
  action: "preview" | "apply";
  /** First 16 hex of SHA-256 of the canonical patch: links previews, applies and ratings. */
  patch_id: string;
  asset_path: string | null;
  patch_path: string | null;
  ok: boolean;
  /** The patch as given (checked). */
  patch: PatchOperation[] | null;
  /** The canonical difference between the asset and the result (add/remove/replace). */
  diff: DiffOperation[] | null;
  mcp_result: ValidatorVerdict | null;
  /** Where the result was written (apply only, only when valid). */
  output_path: string | null;
  failure: { reason: string; detail: string } | null;
}

/** A `patches.jsonl` record of a rating. */
export interface RatingRecord {
  ts: string;
  action: "rate";
  kind: "asset" | "patch";
  target_path: string | null;
  /** `patch_id` for a patch, first 16 hex of SHA-256 of the canonical asset for an asset. */
  target_id: string;
  trace_id: string | null;
  rating: number;
  note: string | null;
}

async function patchRun(
  action: "preview" | "apply",
  asset: unknown,
  patch: unknown,
  deps: PatchDeps,
  paths: { assetPath?: string; patchPath?: string; outputPath?: string },
): Promise<PatchRecord & { result?: unknown }> {
  const record: PatchRecord & { result?: unknown } = {
    ts: new Date(deps.clock.now()).toISOString(),
    action,
    patch_id: contentId(patch),
    asset_path: paths.assetPath ?? null,
    patch_path: paths.patchPath ?? null,
    ok: false,
    patch: null,
    diff: null,
    mcp_result: null,
    output_path: null,
    failure: null,
  };
  let result: unknown;
  try {
    record.patch = validatePatch(patch);
    result = apply(asset, record.patch);
  } catch (error) {
    if (!(error instanceof PatchError) && !(error instanceof SynError)) throw error;
    record.failure = { reason: "patch_error", detail: error.message };
  }
  if (!record.failure) {
    record.diff = diff(asset, result);
    // Validated through the service before anything is persisted.
    record.mcp_result = await deps.validator.validateAsset(result, ASSET_SCHEMA);
    record.ok = record.mcp_result.ok;
    if (!record.ok) {
      const errors = record.mcp_result.errors ?? [];
      record.failure = {
        reason: record.mcp_result.reason ?? "validation_failed",
        detail: record.mcp_result.detail ??
          errors.slice(0, 3).map((error) => `${error.path || "/"} ${error.msg}`).join("; "),
      };
    } else {
      // apply and critique agree: a result critique rejects is not a good result either.
      const rejected = critiqueAsset(result).filter((issue) => issue.severity === "error");
      if (rejected.length) {
        record.ok = false;
        record.failure = {
          reason: "critique_rejected",
          detail: rejected.slice(0, 3).map((issue) => `${issue.path || "/"} ${issue.message}`).join(
            "; ",
          ),
        };
      } else if (action === "apply" && paths.outputPath) {
        const failure = await writeResult(paths.outputPath, result, deps);
        if (failure) {
          record.ok = false;
          record.failure = failure;
        } else record.output_path = paths.outputPath;
      }
    }
  }
  await deps.log.append("patches", record as unknown as Record<string, unknown>);
  return { ...record, result };
}

/** Writes a result; a failure (a folder given as --out, a full disk) is returned, not thrown, so it is logged. */
async function writeResult(
  path: string,
  result: unknown,
  deps: PatchDeps,
): Promise<{ reason: string; detail: string } | undefined> {
  const info = await Deno.stat(path).catch(() => undefined);
  if (info?.isDirectory) {
    return {
      reason: "io_error",
      detail: `${path} is a folder: give the file to write, e.g. ${path}/asset.json`,
    };
  }
  try {
    await (deps.writeFile ?? writeFileAtomic)(path, JSON.stringify(result, null, 2) + "\n");
    return undefined;
  } catch (error) {
    return { reason: "io_error", detail: `cannot write ${path}: ${errorMessage(error)}` };
  }
}

/** Applies a patch in memory, validates the result and logs a `preview` record; writes nothing else. */
export function previewPatch(
  asset: unknown,
  patch: unknown,
  deps: PatchDeps,
  paths: { assetPath?: string; patchPath?: string } = {},
): Promise<PatchRecord & { result?: unknown }> {
  return patchRun("preview", asset, patch, deps, paths);
}

/**
 * Applies a patch, validates the result through the service and writes it atomically to
 * `outputPath` only when valid; logs an `apply` record either way.
 */
export function applyPatch(
  asset: unknown,
  patch: unknown,
  deps: PatchDeps,
  paths: { assetPath?: string; patchPath?: string; outputPath: string },
): Promise<PatchRecord & { result?: unknown }> {
  return patchRun("apply", asset, patch, deps, paths);
}

/** Records a 1–5 rating of an asset or a patch (an array is a patch) with an optional note. */
export async function rateTarget(
  target: unknown,
  rating: number,
  deps: { log: LabsLog; clock: Clock },
  options: { targetPath?: string; note?: string } = {},
): Promise<RatingRecord> {
  if (!Number.isInteger(rating) || rating < 1 || rating > 5) {
    throw new SynError("usage", `Rating must be an integer from 1 to 5: ${rating}`);
  }
  const kind = Array.isArray(target) ? "patch" : "asset";
  const meta = !Array.isArray(target) && target !== null && typeof target === "object"
    ? (target as Record<string, unknown>).meta_info as Record<string, unknown> | undefined
    : undefined;
  const provenance = meta?.provenance as Record<string, unknown> | undefined;
  const record: RatingRecord = {
    ts: new Date(deps.clock.now()).toISOString(),
    action: "rate",
    kind,
    target_path: options.targetPath ?? null,
    target_id: contentId(target),
    trace_id: typeof provenance?.trace_id === "string" ? provenance.trace_id : null,
    rating,
    note: options.note ?? null,
  };
  await deps.log.append("patches", record as unknown as Record<string, unknown>);
  return record;
}
