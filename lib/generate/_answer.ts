import { copyOwn, isRecord } from "../core/mod.ts";
import type { ValidationIssue } from "../schema/mod.ts";
import { type JsonObject, REQUIRED_SECTIONS } from "./asset.ts";

/**
 * A provider's answer read as an asset in schema 0.7.3's names. The Labs spec names two
 * sections differently (`controls`, which may also be a bare list of controls, and
 * `meta`) and gives the haptic intensity as `haptic.intensity`; issues found in the
 * asset are reported at the answer's own pointers through `answerPointer`.
 */
export interface Answer {
  /** The answer with the Labs names mapped onto the schema's; `intensity` taken out. */
  asset: JsonObject;
  /** `haptic.intensity` as the answer gave it, if it did. */
  intensity: unknown;
  /** Problems of the answer as a whole (conflicting names, a forged provenance…). */
  issues: ValidationIssue[];
  /** An asset pointer (`/control/control_parameters/0`) as the answer spells it. */
  answerPointer(pointer: string): string;
}

/** The Labs names of two sections: answer key → schema key. */
const LABS_NAMES = { controls: "control", meta: "meta_info" } as const;

/** Reads an answer object (the caller checked it is one); never mutates it. */
export function readAnswer(raw: JsonObject): Answer {
  const asset = copyOwn(raw, (key) => key === "$schema" || key === "$schemaRef");
  const issues: ValidationIssue[] = [];
  const prefixes: [string, string][] = [];
  for (const [labsName, schemaName] of Object.entries(LABS_NAMES)) {
    if (!Object.hasOwn(asset, labsName)) continue;
    const value = asset[labsName];
    delete asset[labsName];
    if (Object.hasOwn(asset, schemaName)) {
      issues.push({ path: "", msg: `both '${labsName}' and '${schemaName}' given` });
      continue;
    }
    asset[schemaName] = Array.isArray(value) ? { control_parameters: value } : value;
    if (Array.isArray(value)) prefixes.push([`/${schemaName}/control_parameters`, `/${labsName}`]);
    prefixes.push([`/${schemaName}`, `/${labsName}`]);
  }
  const intensity = takeIntensity(asset);
  issues.push(...forgedProvenance(raw), ...noUsableSection(asset));
  return { asset, intensity, issues, answerPointer: (pointer) => renamed(pointer, prefixes) };
}

function takeIntensity(asset: JsonObject): unknown {
  const haptic = asset.haptic;
  if (!isRecord(haptic) || !Object.hasOwn(haptic, "intensity")) return undefined;
  asset.haptic = copyOwn(haptic, (key) => key === "intensity");
  return haptic.intensity;
}

/** The schema leaves meta_info open, but provenance is syn's record of the run. */
function forgedProvenance(raw: JsonObject): ValidationIssue[] {
  return ["meta", "meta_info"]
    .filter((key) => isRecord(raw[key]) && Object.hasOwn(raw[key], "provenance"))
    .map((key) => ({
      path: `/${key}`,
      msg: "field 'provenance' is written by syn, not the answer",
    }));
}

/**
 * Labs normalization contract: sections come from the baseline "unless provider supplies"
 * them, so only an answer with none of the five has nothing usable. A `null` section (the
 * schema allows it) is one the provider left out.
 */
function noUsableSection(asset: JsonObject): ValidationIssue[] {
  if (REQUIRED_SECTIONS.some((section) => asset[section] != null)) return [];
  return [{ path: "", msg: "no usable section (shader, tone, haptic, controls, meta)" }];
}

function renamed(pointer: string, prefixes: readonly [string, string][]): string {
  for (const [from, to] of prefixes) {
    if (pointer === from || pointer.startsWith(`${from}/`)) return to + pointer.slice(from.length);
  }
  return pointer;
}
