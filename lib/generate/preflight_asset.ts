import { compareIssues, formatPointer, isRecord } from "../core/mod.ts";
import { REQUIRED_SECTIONS } from "./asset.ts";

/** One pre-flight problem, shaped like a validator error. */
export interface PreflightIssue {
  path: string;
  msg: string;
}

function checkParameters(
  items: unknown,
  section: string,
  issues: PreflightIssue[],
): void {
  if (!Array.isArray(items)) return;
  items.forEach((item, index) => {
    if (!isRecord(item)) return;
    const { default: value, min, max } = item;
    if (typeof value !== "number") return;
    const path = formatPointer([section, "input_parameters", index, "default"]);
    if (!Number.isFinite(value)) issues.push({ path, msg: "must be a finite number" });
    if (typeof min === "number" && value < min) {
      issues.push({ path, msg: `must be >= min ${min}, got ${value}` });
    }
    if (typeof max === "number" && value > max) {
      issues.push({ path, msg: `must be <= max ${max}, got ${value}` });
    }
  });
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
  for (const section of REQUIRED_SECTIONS) {
    if (!isRecord(asset[section])) issues.push({ path: "", msg: `missing section '${section}'` });
  }
  const shader = asset.shader;
  if (isRecord(shader)) {
    if (!Array.isArray(shader.uniforms) || shader.uniforms.length === 0) {
      issues.push({ path: "/shader", msg: "shader needs uniforms" });
    }
    if (!Array.isArray(shader.input_parameters) || shader.input_parameters.length === 0) {
      issues.push({ path: "/shader", msg: "shader needs input_parameters" });
    }
    checkParameters(shader.input_parameters, "shader", issues);
  }
  if (isRecord(asset.tone)) checkParameters(asset.tone.input_parameters, "tone", issues);
  const haptic = asset.haptic;
  if (isRecord(haptic)) {
    checkParameters(haptic.input_parameters, "haptic", issues);
    const parameters = Array.isArray(haptic.input_parameters) ? haptic.input_parameters : [];
    parameters.forEach((item, index) => {
      if (!isRecord(item) || item.parameter !== "haptic.intensity") return;
      const value = item.default;
      if (typeof value !== "number" || value < 0 || value > 1) {
        issues.push({
          path: formatPointer(["haptic", "input_parameters", index, "default"]),
          msg: `haptic intensity must be in [0, 1], got ${JSON.stringify(value)}`,
        });
      }
    });
  }
  const control = asset.control;
  if (isRecord(control) && Array.isArray(control.control_parameters)) {
    control.control_parameters.forEach((item, index) => {
      if (!isRecord(item) || typeof item.default !== "number") return;
      const path = formatPointer(["control", "control_parameters", index, "default"]);
      if (typeof item.min === "number" && item.default < item.min) {
        issues.push({ path, msg: `must be >= min ${item.min}, got ${item.default}` });
      }
      if (typeof item.max === "number" && item.default > item.max) {
        issues.push({ path, msg: `must be <= max ${item.max}, got ${item.default}` });
      }
    });
  }
  const meta = asset.meta_info;
  if (isRecord(meta) && meta.category !== "multimodal") {
    issues.push({ path: "/meta_info/category", msg: 'must be "multimodal"' });
  }
  return issues.sort(compareIssues((issue) => issue.msg));
}
