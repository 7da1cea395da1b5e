import { type Clock, compareIssues, formatPointer, isRecord } from "../core/mod.ts";
import type { ValidatorClient, ValidatorVerdict } from "../mcp/mod.ts";
import { ASSET_SCHEMA, type JsonObject } from "./asset.ts";
import {
  controlDefaultsOutOfRange,
  hapticIntensityOutOfRange,
  synthOptionTypeFindings,
} from "./asset_bounds.ts";
import type { LabsLog } from "./labs_log.ts";

/** One finding of the critic. */
export interface QualityIssue {
  /** Stable identifier, e.g. `control_target_missing`. */
  code: string;
  severity: "error" | "warning" | "info";
  /** RFC 6901 pointer into the asset. */
  path: string;
  message: string;
}

/** Below this volume (dB) a tone is inaudible for practical purposes. */
export const SILENT_VOLUME_DB = -60;

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function volumeOf(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value === "string" && /^-?inf(inity)?$/i.test(value.trim())) return -Infinity;
  if (isRecord(value)) return volumeOf(value.value);
  return undefined;
}

/** What controls and modulations may aim at: shader uniform names and parameter paths. */
type Targets = { uniforms: Set<string>; paths: Set<string> };

function targetsOf(asset: JsonObject): Targets {
  const shader = isRecord(asset.shader) ? asset.shader : {};
  const uniforms = new Set<string>();
  for (const uniform of list(shader.uniforms)) {
    if (isRecord(uniform) && typeof uniform.name === "string") uniforms.add(uniform.name);
  }
  const paths = new Set<string>();
  for (const section of ["tone", "haptic"]) {
    const value = asset[section];
    if (!isRecord(value)) continue;
    for (const parameter of list(value.input_parameters)) {
      if (!isRecord(parameter)) continue;
      for (const key of ["path", "parameter"]) {
        const name = parameter[key];
        if (typeof name === "string") {
          paths.add(name.startsWith(`${section}.`) ? name : `${section}.${name}`);
        }
      }
    }
  }
  return { uniforms, paths };
}

function checkTarget(
  target: unknown,
  path: string,
  known: { uniforms: Set<string>; paths: Set<string> },
  code: string,
  issues: QualityIssue[],
): void {
  if (typeof target !== "string") return;
  const [section, ...rest] = target.split(".");
  const name = rest.join(".");
  if (section === "shader" || section === "visual") {
    if (!known.uniforms.has(name)) {
      issues.push({
        code,
        severity: "error",
        path,
        message: `targets uniform '${name}', which the shader does not declare`,
      });
    }
  } else if (section === "tone" || section === "haptic") {
    if (!known.paths.has(target)) {
      issues.push({
        code,
        severity: "warning",
        path,
        message: `targets '${target}', which no ${section} input parameter exposes`,
      });
    }
  }
}

/**
 * The critic's quality checks, beyond schema validity: controls and modulations that
 * target missing uniforms or parameters, synth options of a type Tone.js cannot take, a
 * silent tone, haptic intensity out of [0, 1],
 * defaults outside their ranges, uniforms the fragment shader never uses, and missing
 * pointer controls. Pure; issues sorted by (path, code).
 */
export function critiqueAsset(asset: unknown): QualityIssue[] {
  if (!isRecord(asset)) {
    return [{
      code: "not_an_object",
      severity: "error",
      path: "",
      message: "asset must be an object",
    }];
  }
  const known = targetsOf(asset);
  const issues: QualityIssue[] = [
    ...checkControls(asset, known),
    ...checkPointerControls(asset),
    ...checkModulations(asset, known),
    ...checkTone(asset),
    ...checkHaptic(asset),
    ...checkShaderUse(asset),
  ];
  checkUniformRanges(asset, issues);
  return issues.sort(compareIssues((issue) => issue.code));
}

/** The "section missing" warning for one absent section. */
function missing(message: string): QualityIssue {
  return { code: "section_missing", severity: "warning", path: "", message };
}

/** Controls aim at something that exists, and their defaults sit within their range. */
function checkControls(asset: JsonObject, known: Targets): QualityIssue[] {
  const issues: QualityIssue[] = [];
  const control = isRecord(asset.control) ? asset.control : undefined;
  list(control?.control_parameters).forEach((item, index) => {
    if (!isRecord(item)) return;
    const path = formatPointer(["control", "control_parameters", index, "parameter"]);
    checkTarget(item.parameter, path, known, "control_target_missing", issues);
  });
  for (const { path, value, limit, bound } of controlDefaultsOutOfRange(asset)) {
    if (limit !== "min" && limit !== "max") continue;
    const side = limit === "min" ? "below" : "above";
    issues.push({
      code: "default_out_of_range",
      severity: "warning",
      path,
      message: `default ${value} is ${side} ${limit} ${bound}`,
    });
  }
  return issues;
}

/** The pointer moves the shape: mouse.x drives u_px, an inverted mouse.y drives u_py. */
function checkPointerControls(asset: JsonObject): QualityIssue[] {
  const control = isRecord(asset.control) ? asset.control : undefined;
  const controls = list(control?.control_parameters);
  const hasMapping = (parameter: string, axis: string, inverted: boolean) =>
    controls.some((item) =>
      isRecord(item) && item.parameter === parameter &&
      list(item.mappings).some((mapping) =>
        isRecord(mapping) && isRecord(mapping.action) && mapping.action.axis === axis &&
        (!inverted ||
          (typeof mapping.action.sensitivity === "number" && mapping.action.sensitivity < 0))
      )
    );
  const issues: QualityIssue[] = [];
  const note = (message: string) =>
    issues.push({ code: "pointer_control_missing", severity: "info", path: "/control", message });
  if (!hasMapping("shader.u_px", "mouse.x", false)) note("no mouse.x control for shader.u_px");
  if (!hasMapping("shader.u_py", "mouse.y", true)) {
    note("no inverted mouse.y control for shader.u_py");
  }
  return issues;
}

/** Modulations aim at something that exists, and an additive one rests where it should. */
function checkModulations(asset: JsonObject, known: Targets): QualityIssue[] {
  const issues: QualityIssue[] = [];
  list(asset.modulations).forEach((item, index) => {
    if (!isRecord(item)) return;
    const path = formatPointer(["modulations", index, "target"]);
    checkTarget(item.target, path, known, "modulation_target_missing", issues);
    checkModulationRest(asset, item, formatPointer(["modulations", index, "offset"]), issues);
  });
  return issues;
}

/**
 * An additive modulation's output — `offset` + amplitude · wave — is added to the target's
 * own value (the canonical baseline's `offset: 0` moves around the declared value). An
 * offset equal to that value doubles it at rest; a resting value outside the modulation's
 * min/max is clamped for good.
 */
function checkModulationRest(
  asset: JsonObject,
  item: JsonObject,
  path: string,
  issues: QualityIssue[],
): void {
  const { offset, min, max } = item;
  if (item.type !== "additive" || typeof offset !== "number" || offset === 0) return;
  const declared = typeof item.target === "string" ? declaredValue(asset, item.target) : undefined;
  if (declared === undefined) return;
  const rest = declared + offset;
  if (declared !== 0 && offset === declared) {
    issues.push({
      code: "modulation_offset_doubles_value",
      severity: "warning",
      path,
      message: `an additive offset is added to the target's value ${declared}: this one ` +
        `rests at ${rest}, not ${declared} (0 keeps the declared value)`,
    });
  } else if (
    (typeof min === "number" && rest < min) || (typeof max === "number" && rest > max)
  ) {
    issues.push({
      code: "modulation_rest_out_of_range",
      severity: "warning",
      path,
      message: `the target's value ${declared} plus offset ${offset} rests at ${rest}, ` +
        `outside ${quote(min)}…${quote(max)}`,
    });
  }
}

/**
 * The value an asset declares for a modulation target (`shader.u_r`, `u_r`,
 * `haptic.intensity`, `tone.detune`): a uniform's default, else an input parameter's.
 */
function declaredValue(asset: JsonObject, target: string): number | undefined {
  const [head, ...rest] = target.split(".");
  const section = ["shader", "tone", "haptic"].includes(head) && rest.length ? head : "shader";
  const name = section === head ? rest.join(".") : target;
  const part = isRecord(asset[section]) ? asset[section] as JsonObject : {};
  const numeric = (value: unknown) => typeof value === "number" ? value : undefined;
  if (section === "shader") {
    const uniform = list(part.uniforms).find((u) => isRecord(u) && u.name === name);
    if (isRecord(uniform) && numeric(uniform.default) !== undefined) {
      return numeric(uniform.default);
    }
  }
  const names = new Set([name, `${section}.${name}`]);
  const parameter = list(part.input_parameters).find((p) =>
    isRecord(p) && (names.has(String(p.path)) || names.has(String(p.parameter)))
  );
  return isRecord(parameter) ? numeric(parameter.default) : undefined;
}

/** What an issue quotes of a value: JSON, cut short. */
function quote(value: unknown): string {
  const json = JSON.stringify(value) ?? "nothing";
  return json.length > 60 ? `${json.slice(0, 60)}…` : json;
}

/**
 * A tone exists, Tone.js can take its synth type and options, and it is not silent,
 * neither by its volume nor by its volume parameter.
 */
function checkTone(asset: JsonObject): QualityIssue[] {
  const tone = isRecord(asset.tone) ? asset.tone : undefined;
  if (!tone) return [missing("no tone section")];
  const issues: QualityIssue[] = synthOptionTypeFindings(asset).map((finding) => ({
    code: "tone_option_type",
    severity: "error",
    path: finding.path,
    message: `must be ${finding.expected}, got ${quote(finding.given)}`,
  }));
  const synth = isRecord(tone.synth) ? tone.synth : {};
  const options = isRecord(synth.options) ? synth.options : {};
  const volume = volumeOf(options.volume ?? synth.volume);
  if (volume !== undefined && volume <= SILENT_VOLUME_DB) {
    issues.push({
      code: "silent_tone",
      severity: "error",
      path: options.volume !== undefined ? "/tone/synth/options/volume" : "/tone/synth/volume",
      message: `volume ${volume} dB is silent (at or below ${SILENT_VOLUME_DB} dB)`,
    });
  }
  list(tone.input_parameters).forEach((item, index) => {
    if (!isRecord(item) || item.parameter !== "volume") return;
    const value = volumeOf(item.default);
    if (value === undefined || value > SILENT_VOLUME_DB) return;
    issues.push({
      code: "silent_tone",
      severity: "error",
      path: formatPointer(["tone", "input_parameters", index, "default"]),
      message: `volume default ${value} dB is silent`,
    });
  });
  return issues;
}

/** A haptic profile exists and its intensities stay within [0, 1]. */
function checkHaptic(asset: JsonObject): QualityIssue[] {
  if (!isRecord(asset.haptic)) return [missing("no haptic section")];
  return hapticIntensityOutOfRange(asset, ["default", "min", "max"], { device: true }).map((
    { path, key, value },
  ) => ({
    code: "haptic_out_of_range",
    severity: "error",
    path,
    message: key === "maxIntensity"
      ? `maxIntensity ${value} is outside [0, 1]`
      : `intensity ${key} ${value} is outside [0, 1]`,
  }));
}

/** The fragment shader has a main() and uses every uniform it declares. */
function checkShaderUse(asset: JsonObject): QualityIssue[] {
  const shader = isRecord(asset.shader) ? asset.shader : undefined;
  if (!shader || typeof shader.fragment_shader !== "string") {
    return [missing("no shader with a fragment shader")];
  }
  const source = shader.fragment_shader;
  const issues: QualityIssue[] = [];
  if (!/\bvoid\s+main\s*\(/.test(source)) {
    issues.push({
      code: "shader_no_main",
      severity: "error",
      path: "/shader/fragment_shader",
      message: "fragment shader has no main()",
    });
  }
  list(shader.uniforms).forEach((uniform, index) => {
    if (!isRecord(uniform) || typeof uniform.name !== "string") return;
    if (new RegExp(`\\b${uniform.name.replace(/[^\w]/g, "")}\\b`).test(source)) return;
    issues.push({
      code: "uniform_unused",
      severity: "info",
      path: formatPointer(["shader", "uniforms", index]),
      message: `uniform '${uniform.name}' is not used by the fragment shader`,
    });
  });
  return issues;
}

/** The critic's verdict on one asset, as `critic.jsonl` stores it. */
export interface CritiqueRecord {
  ts: string;
  trace_id: string | null;
  asset_path: string | null;
  asset_name: string | null;
  ok: boolean;
  severity: "info" | "warning" | "error";
  transport: string;
  mcp_result: ValidatorVerdict;
  issues: QualityIssue[];
}

/**
 * Validation through the service plus the quality checks, logged to `critic.jsonl`.
 * `ok` when the service says valid and no issue has severity `error`.
 */
export async function runCritique(
  asset: unknown,
  deps: { validator: ValidatorClient; log: LabsLog; clock: Clock; assetPath?: string },
): Promise<CritiqueRecord> {
  const verdict = await deps.validator.validateAsset(asset, ASSET_SCHEMA);
  const issues = critiqueAsset(asset);
  const worst = issues.some((issue) => issue.severity === "error")
    ? "error"
    : issues.some((issue) => issue.severity === "warning")
    ? "warning"
    : "info";
  const ok = verdict.ok && worst !== "error";
  const meta = isRecord(asset) && isRecord(asset.meta_info) ? asset.meta_info : undefined;
  const provenance = isRecord(meta?.provenance) ? meta.provenance : undefined;
  const record: CritiqueRecord = {
    ts: new Date(deps.clock.now()).toISOString(),
    trace_id: typeof provenance?.trace_id === "string" ? provenance.trace_id : null,
    asset_path: deps.assetPath ?? null,
    asset_name: isRecord(asset) && typeof asset.name === "string" ? asset.name : null,
    ok,
    severity: !verdict.ok ? "error" : worst,
    transport: deps.validator.transport,
    mcp_result: verdict,
    issues,
  };
  await deps.log.append("critic", record as unknown as Record<string, unknown>);
  return record;
}

/**
 * A uniform whose default lies outside the range its input parameter declares starts the
 * shader in a state the controls can never bring it back to.
 */
function checkUniformRanges(asset: Record<string, unknown>, issues: QualityIssue[]): void {
  const shader = isRecord(asset.shader) ? asset.shader : undefined;
  if (!shader) return;
  const ranges = new Map<string, { min: number; max: number }>();
  for (const parameter of list(shader.input_parameters)) {
    if (!isRecord(parameter) || typeof parameter.parameter !== "string") continue;
    if (typeof parameter.min === "number" && typeof parameter.max === "number") {
      ranges.set(parameter.parameter, { min: parameter.min, max: parameter.max });
    }
  }
  list(shader.uniforms).forEach((uniform, index) => {
    if (!isRecord(uniform) || typeof uniform.name !== "string") return;
    const range = ranges.get(uniform.name);
    if (!range) return;
    const values = typeof uniform.default === "number"
      ? [uniform.default]
      : Array.isArray(uniform.default) && uniform.default.every((item) => typeof item === "number")
      ? uniform.default as number[]
      : [];
    const outside = values.find((value) => value < range.min || value > range.max);
    if (outside !== undefined) {
      issues.push({
        code: "uniform_out_of_range",
        severity: "error",
        path: formatPointer(["shader", "uniforms", index, "default"]),
        message:
          `default ${outside} is outside the declared range [${range.min}, ${range.max}] of ${uniform.name}`,
      });
    }
  });
}
