/**
 * The numeric rules the schema cannot state — a default inside its own min/max, a haptic
 * intensity inside [0, 1] — written once. Pre-flight turns these findings into errors
 * (Labs spec validation step 1); the critic reports them with its own codes. What a valid
 * asset is otherwise is the schema's answer alone (`lib/schema`, through the validator).
 */
import { formatPointer, isRecord } from "../core/mod.ts";
import { REQUIRED_SECTIONS } from "./asset.ts";

/** One broken bound: where, which value, and which limit it passes. */
export interface BoundFinding {
  path: string;
  value: number;
  /** `min`/`max`: the item's own limits; `unit`: [0, 1]; `finite`: NaN or ±Infinity. */
  limit: "min" | "max" | "unit" | "finite";
  bound?: number;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** An item's number `key` outside the item's own `min`/`max`. */
function outsideOwnRange(item: Record<string, unknown>, key: string, path: string): BoundFinding[] {
  const value = item[key];
  if (typeof value !== "number") return [];
  if (!Number.isFinite(value)) return [{ path, value, limit: "finite" }];
  const findings: BoundFinding[] = [];
  if (typeof item.min === "number" && value < item.min) {
    findings.push({ path, value, limit: "min", bound: item.min });
  }
  if (typeof item.max === "number" && value > item.max) {
    findings.push({ path, value, limit: "max", bound: item.max });
  }
  return findings;
}

/** Input-parameter defaults (shader, tone, haptic) outside their own min/max. */
export function inputDefaultsOutOfRange(asset: Record<string, unknown>): BoundFinding[] {
  return ["shader", "tone", "haptic"].flatMap((section) => {
    const part = asset[section];
    if (!isRecord(part)) return [];
    return list(part.input_parameters).flatMap((item, index) =>
      isRecord(item)
        ? outsideOwnRange(
          item,
          "default",
          formatPointer([section, "input_parameters", index, "default"]),
        )
        : []
    );
  });
}

/** Control defaults outside their own min/max. */
export function controlDefaultsOutOfRange(asset: Record<string, unknown>): BoundFinding[] {
  const control = isRecord(asset.control) ? asset.control : undefined;
  return list(control?.control_parameters).flatMap((item, index) =>
    isRecord(item)
      ? outsideOwnRange(
        item,
        "default",
        formatPointer(["control", "control_parameters", index, "default"]),
      )
      : []
  );
}

/**
 * Haptic intensities outside [0, 1]: the `haptic.intensity` parameter's fields `keys`
 * (a missing or non-number `default` counts when asked for), and with `device` the
 * device's `maxIntensity`.
 */
export function hapticIntensityOutOfRange(
  asset: Record<string, unknown>,
  keys: readonly string[],
  options: { requireDefault?: boolean; device?: boolean } = {},
): (BoundFinding & { key: string; given: unknown })[] {
  const haptic = isRecord(asset.haptic) ? asset.haptic : undefined;
  if (!haptic) return [];
  const findings: (BoundFinding & { key: string; given: unknown })[] = [];
  list(haptic.input_parameters).forEach((item, index) => {
    if (!isRecord(item) || item.parameter !== "haptic.intensity") return;
    for (const key of keys) {
      const given = item[key];
      const path = formatPointer(["haptic", "input_parameters", index, key]);
      const bad = typeof given === "number"
        ? given < 0 || given > 1
        : options.requireDefault === true && key === "default";
      if (bad) findings.push({ path, value: Number(given), limit: "unit", key, given });
    }
  });
  const device = isRecord(haptic.device) ? haptic.device : {};
  const maxIntensity = isRecord(device.options) ? device.options.maxIntensity : undefined;
  const value = isRecord(maxIntensity) ? maxIntensity.value : undefined;
  if (options.device && typeof value === "number" && (value < 0 || value > 1)) {
    findings.push({
      path: "/haptic/device/options/maxIntensity/value",
      value,
      limit: "unit",
      key: "maxIntensity",
      given: value,
    });
  }
  return findings;
}

/** The sections an asset must have that it lacks (not objects), in the spec's order. */
export function missingSections(asset: Record<string, unknown>): string[] {
  return REQUIRED_SECTIONS.filter((section) => !isRecord(asset[section]));
}
