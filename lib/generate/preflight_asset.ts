import { compareIssues, isRecord } from "../core/mod.ts";
import {
  type BoundFinding,
  controlDefaultsOutOfRange,
  hapticIntensityOutOfRange,
  inputDefaultsOutOfRange,
  missingSections,
} from "./asset_bounds.ts";

/** One pre-flight problem, shaped like a validator error. */
export interface PreflightIssue {
  path: string;
  msg: string;
}

/** A bound finding in pre-flight's words. */
function boundIssue(finding: BoundFinding): PreflightIssue {
  const { path, value, limit, bound } = finding;
  if (limit === "finite") return { path, msg: "must be a finite number" };
  if (limit === "min") return { path, msg: `must be >= min ${bound}, got ${value}` };
  return { path, msg: `must be <= max ${bound}, got ${value}` };
}

/**
 * Labs spec validation step 1: the required sections exist and numeric bounds hold
 * (haptic intensity in [0, 1], input-parameter and control defaults inside their
 * min/max). Returns issues sorted by (path, msg); empty when the asset passes.
 */
export function preflightAsset(asset: unknown): PreflightIssue[] {
  const issues: PreflightIssue[] = [];
  if (!isRecord(asset)) return [{ path: "", msg: "asset must be an object" }];
  if (typeof asset.name !== "string" || asset.name === "") {
    issues.push({ path: "", msg: "missing required field 'name'" });
  }
  for (const section of missingSections(asset)) {
    issues.push({ path: "", msg: `missing section '${section}'` });
  }
  const shader = asset.shader;
  if (isRecord(shader)) {
    if (!Array.isArray(shader.uniforms) || shader.uniforms.length === 0) {
      issues.push({ path: "/shader", msg: "shader needs uniforms" });
    }
    if (!Array.isArray(shader.input_parameters) || shader.input_parameters.length === 0) {
      issues.push({ path: "/shader", msg: "shader needs input_parameters" });
    }
  }
  issues.push(...inputDefaultsOutOfRange(asset).map(boundIssue));
  issues.push(...controlDefaultsOutOfRange(asset).map(boundIssue));
  for (const finding of hapticIntensityOutOfRange(asset, ["default"], { requireDefault: true })) {
    issues.push({
      path: finding.path,
      msg: `haptic intensity must be in [0, 1], got ${JSON.stringify(finding.given)}`,
    });
  }
  const meta = asset.meta_info;
  if (isRecord(meta) && meta.category !== "multimodal") {
    issues.push({ path: "/meta_info/category", msg: 'must be "multimodal"' });
  }
  return issues.sort(compareIssues((issue) => issue.msg));
}
