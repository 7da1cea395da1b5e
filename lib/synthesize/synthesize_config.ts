/**
 * `syn.jsonc`: the synthesis spec's configuration with the same keys and defaults, as
 * JSONC (`{"huginn": {"synthesis": …, "validation": …, "llm": …}}`, or the inner object
 * alone). Unknown keys and wrong types are errors naming the key. `llm.retry_on` is the
 * spec's table of retry parameters (the HTTP statuses retried); the others of that table
 * (`max_retries`, `backoff_base_ms`, `backoff_factor`, `timeout_seconds`) are `llm` keys too.
 */
import { isRecord, SynError } from "../core/mod.ts";
import { parseJsonc } from "./_jsonc.ts";
import { DEFAULT_VALIDATION_CONFIG, type ValidationConfig } from "./replay_validation.ts";

export interface SynthesizeConfig {
  synthesis: {
    llm_model: string;
    require_approval: boolean;
    max_parallel_steps: number;
    max_retries_on_invalid: number;
    prompt_template: string;
  };
  validation: ValidationConfig;
  llm: {
    timeout_seconds: number;
    max_retries: number;
    backoff_base_ms: number;
    backoff_factor: number;
    /** HTTP statuses that trigger a retry (spec default: 429, 500, 502, 503; not 504). */
    retry_on: number[];
  };
}

export const DEFAULT_SYNTHESIZE_CONFIG: SynthesizeConfig = {
  synthesis: {
    llm_model: "claude-sonnet-4-20250514",
    require_approval: true,
    max_parallel_steps: 3,
    max_retries_on_invalid: 1,
    prompt_template: "default",
  },
  validation: { ...DEFAULT_VALIDATION_CONFIG },
  llm: {
    timeout_seconds: 120,
    max_retries: 3,
    backoff_base_ms: 1000,
    backoff_factor: 2.0,
    retry_on: [429, 500, 502, 503],
  },
};

/** Allowed values beyond the type, by `section.key`. */
const CHECKS: Record<string, (value: unknown) => boolean> = {
  // A model id, not a sentence: what providers accept (`claude-sonnet-4-20250514`,
  // `models/gemini-2.0-flash`, `llama3.2:8b`).
  "synthesis.llm_model": (v) => /^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,199}$/.test(v as string),
  "synthesis.max_parallel_steps": (v) => Number.isInteger(v) && (v as number) >= 1,
  "synthesis.max_retries_on_invalid": (v) => Number.isInteger(v) && (v as number) >= 0,
  "synthesis.prompt_template": (v) => v === "default",
  "validation.min_replay_sessions": (v) => Number.isInteger(v) && (v as number) >= 1,
  "validation.equivalence_threshold": (v) => (v as number) >= 0 && (v as number) <= 1,
  "validation.max_latency_regression": (v) => (v as number) > 0,
  "validation.similarity_method": (v) => v === "cosine_tfidf" || v === "exact_match",
  "llm.timeout_seconds": (v) => (v as number) > 0,
  "llm.max_retries": (v) => Number.isInteger(v) && (v as number) >= 0,
  "llm.backoff_base_ms": (v) => (v as number) >= 0,
  "llm.backoff_factor": (v) => (v as number) >= 1,
  "llm.retry_on": (v) =>
    Array.isArray(v) && v.length <= 100 &&
    v.every((status) => Number.isInteger(status) && status >= 400 && status <= 599),
};

/** The configuration from a `syn.jsonc` text (`source` names it in errors). */
export function parseSynthesizeConfig(text: string, source: string): SynthesizeConfig {
  const parsed = parseJsonc(text, source);
  const root = isRecord(parsed) && isRecord(parsed.huginn) ? parsed.huginn : parsed;
  if (!isRecord(root)) throw new SynError("config_error", `${source}: must be a JSON object`);
  const config = structuredClone(DEFAULT_SYNTHESIZE_CONFIG) as unknown as Record<
    string,
    Record<string, unknown>
  >;
  for (const [section, values] of Object.entries(root)) {
    if (!(section in config)) {
      throw new SynError(
        "config_error",
        `${source}: unknown section "${section}" (synthesis, validation, llm)`,
      );
    }
    if (!isRecord(values)) {
      throw new SynError("config_error", `${source}: "${section}" must be an object`);
    }
    for (const [key, value] of Object.entries(values)) {
      const name = `${section}.${key}`;
      if (!(key in config[section])) {
        throw new SynError("config_error", `${source}: unknown key "${name}"`);
      }
      const wanted = typeof config[section][key];
      const wrongType = typeof value !== wanted || value === null ||
        Array.isArray(value) !== Array.isArray(config[section][key]);
      if (wrongType || (CHECKS[name] && !CHECKS[name](value))) {
        throw new SynError(
          "config_error",
          `${source}: "${name}" has a wrong value: ${JSON.stringify(value)}`,
        );
      }
      config[section][key] = value;
    }
  }
  return config as unknown as SynthesizeConfig;
}

/** `syn.jsonc` from `path`; the defaults when `path` is the implicit one and absent. */
export async function loadSynthesizeConfig(
  path: string,
  options: { explicit: boolean },
): Promise<SynthesizeConfig> {
  let text: string;
  try {
    const info = await Deno.stat(path);
    if (info.size > 1024 * 1024) throw new SynError("config_error", `${path}: larger than 1 MiB`);
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound && !options.explicit) {
      return structuredClone(DEFAULT_SYNTHESIZE_CONFIG);
    }
    if (error instanceof SynError) throw error;
    throw new SynError("config_error", `cannot read ${path}: ${(error as Error).message}`);
  }
  return parseSynthesizeConfig(text, path);
}
