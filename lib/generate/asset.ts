/**
 * The asset model `generate` produces: a nested Synesthetic asset of schema 0.7.3.
 * The Labs spec's sections map onto it as `controls` → `control` and `meta` →
 * `meta_info` (specs/README.md rule 1).
 */

// Core's list, not lib/llm's re-export of it: the deterministic engine loads no model code.
import { PROVIDERS } from "../core/mod.ts";

type LabsProvider = Exclude<typeof PROVIDERS[number], "openai-compatible">;

/**
 * Engines `syn generate --engine` accepts (specs/README.md rule 5): the offline engine and
 * the providers of `lib/llm`; an OpenAI-compatible server is `openai` with OPENAI_ENDPOINT.
 */
export const ENGINES: readonly ("deterministic" | LabsProvider)[] = Object.freeze([
  "deterministic",
  ...PROVIDERS.filter((name): name is LabsProvider => name !== "openai-compatible"),
]);
export type EngineName = typeof ENGINES[number];
/** The engines that call a language model. */
export type ExternalEngineName = Exclude<EngineName, "deterministic">;

/** The sections every generated asset carries (schema 0.7.3 names). */
export const REQUIRED_SECTIONS = ["shader", "tone", "haptic", "control", "meta_info"] as const;

/** The nine synth types schema 0.7.3 allows for `tone.synth.type`. */
export const SYNTH_TYPES = [
  "Tone.Synth",
  "Tone.PolySynth",
  "Tone.MonoSynth",
  "Tone.FMSynth",
  "Tone.AMSynth",
  "Tone.DuoSynth",
  "Tone.MembraneSynth",
  "Tone.MetalSynth",
  "Tone.PluckSynth",
] as const;

/** The JSON-Schema name assets are validated against by the validator service. */
export const ASSET_SCHEMA = "synesthetic-asset";

export type JsonObject = Record<string, unknown>;

export interface UniformDef {
  name: string;
  type: string;
  stage: string;
  default: unknown;
}

export interface InputParameter {
  name: string;
  parameter: string;
  path: string;
  type: string;
  default: unknown;
  min?: number | null;
  max?: number | null;
  step?: number | null;
  smoothingTime?: number | null;
  unit?: string | null;
  options?: string[] | null;
}

export interface Shader {
  name: string;
  description?: string | null;
  vertex_shader: string;
  fragment_shader: string;
  uniforms: UniformDef[];
  input_parameters: InputParameter[];
  meta_info?: JsonObject | null;
}

export interface ControlMapping {
  combo: {
    keys?: string[] | null;
    mouseButtons?: string[] | null;
    strict?: boolean;
    wheel?: boolean | null;
  };
  action: {
    axis: "mouse.x" | "mouse.y" | "mouse.wheel";
    sensitivity: number;
    curve?: string;
    scale?: number;
  };
}

export interface ControlParameter {
  parameter: string;
  label: string;
  type: "float" | "int" | "bool" | "string";
  unit: string;
  default: number | boolean | string;
  mappings: ControlMapping[];
  min?: number | null;
  max?: number | null;
  step?: number | null;
  smoothingTime?: number;
  options?: string[] | null;
}

export interface ControlBundle {
  name: string;
  description?: string | null;
  control_parameters: ControlParameter[];
  meta_info?: JsonObject | null;
}

/** `meta_info.provenance` exactly as the Labs spec lists it, plus `response_hash`. */
export interface Provenance {
  engine: string;
  api_endpoint: string | null;
  api_version: string;
  model: string;
  parameters: { temperature: number | null; seed: number | null };
  trace_id: string;
  /** The spec's two values: `live` only when a real provider answered. */
  mode: "mock" | "live";
  timestamp: string;
  response_hash: string;
  /** Sections the answer lacked, filled from the canonical baseline (absent when none). */
  filled_sections?: string[];
}

export interface MetaInfo extends JsonObject {
  title: string;
  description: string;
  category: "multimodal";
  complexity: string;
  tags: string[];
  provenance?: Provenance;
}

/** A nested Synesthetic asset as `generate` writes it. */
export interface SynestheticAsset extends JsonObject {
  name: string;
  description?: string | null;
  shader: Shader;
  tone: JsonObject & { name: string; synth: JsonObject };
  haptic: JsonObject & { name: string; device: JsonObject; input_parameters: InputParameter[] };
  control: ControlBundle;
  modulations?: JsonObject[] | null;
  rule_bundle?: JsonObject;
  meta_info: MetaInfo;
}
