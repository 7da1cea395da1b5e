import { resolvePath, type SynConfig, SynError } from "../core/mod.ts";
import { type EngineName, ENGINES } from "./asset.ts";
import { DEFAULT_LOG_DIR } from "./labs_log.ts";

/** Flags of `syn generate`, already parsed (numbers as numbers). */
export interface GenerateFlags {
  engine?: string;
  seed?: number;
  temperature?: number;
  timeoutS?: number;
  strict?: boolean;
  relaxed?: boolean;
  out?: string;
  logDir?: string;
  concurrency?: number;
}

/** Where a setting came from, for `--help`-style explanations and tests. */
export type SettingSource = "flag" | "env" | "default";

/** Everything a generation run needs, resolved once (flag > env > default) and frozen. */
export interface GenerateConfig {
  readonly engine: EngineName;
  readonly seed: number | null;
  readonly temperature: number | null;
  /** Total time for one provider call, seconds; `null` keeps the spec's 35 s. */
  readonly timeoutS: number | null;
  /** `LABS_FAIL_FAST`: strict makes any validation failure a non-zero exit. */
  readonly strict: boolean;
  /** Folder valid assets are written to (absolute). */
  readonly outDir: string;
  /** Root of the Labs logs (absolute). */
  readonly logDir: string;
  readonly concurrency: number;
  readonly sources: Readonly<
    { strict: SettingSource; logDir: SettingSource; outDir: SettingSource }
  >;
}

/** The default folder for generated assets, relative to the working directory. */
export const DEFAULT_OUT_DIR = "meta/output/assets";

/** What the Labs settings are resolved from: the configuration and the working directory. */
export interface LabsSettingsOptions {
  config: Pick<SynConfig, "labs">;
  cwd: string;
}

function pickFolder(
  flag: string | undefined,
  fromEnv: string | undefined,
  fallback: string,
  cwd: string,
): { value: string; source: SettingSource } {
  // resolvePath() also drops a trailing slash, so `assets/` + name has one `/`.
  const absolute = (path: string) => resolvePath(cwd, path);
  if (flag) return { value: absolute(flag), source: "flag" };
  if (fromEnv) return { value: absolute(fromEnv), source: "env" };
  return { value: absolute(fallback), source: "default" };
}

/**
 * The Labs log root alone (for `syn critique` and `syn patch`): `--log-dir` wins over
 * `LABS_LOG_DIR` over `meta/output/labs`, relative to `cwd`.
 */
export function resolveLogDir(flag: string | undefined, options: LabsSettingsOptions): string {
  return pickFolder(flag, options.config.labs.logDir, DEFAULT_LOG_DIR, options.cwd).value;
}

function parseFailFast(value: string): boolean {
  const text = value.trim().toLowerCase();
  if (["1", "true", "yes", "on", "strict"].includes(text)) return true;
  if (["0", "false", "no", "off", "relaxed"].includes(text)) return false;
  throw new SynError("config_error", `LABS_FAIL_FAST must be 1 (strict) or 0 (relaxed): ${value}`, {
    variable: "LABS_FAIL_FAST",
    value,
  });
}

/**
 * Resolves the run's settings once. `--strict`/`--relaxed` win over `LABS_FAIL_FAST`,
 * which wins over the default: strict (a failed validation exits non-zero, the safe
 * choice for scripts). `--log-dir` wins over `LABS_LOG_DIR` over `meta/output/labs`;
 * `--out` wins over `LABS_OUTPUT_DIR` over `meta/output/assets`; both relative to `cwd`.
 */
export function resolveGenerateConfig(
  flags: GenerateFlags,
  options: LabsSettingsOptions,
): GenerateConfig {
  const { labs } = options.config;
  const engine = flags.engine ?? "deterministic";
  if (!(ENGINES as readonly string[]).includes(engine)) {
    // An OpenAI-compatible server is the openai engine pointed elsewhere.
    const hint = /compat|ollama|llama|vllm|local/i.test(engine)
      ? " (an OpenAI-compatible server is the openai engine, with OPENAI_ENDPOINT or the endpoint option)"
      : "";
    throw new SynError(
      "invalid_option",
      `the engine is one of ${ENGINES.join(", ")}: ${engine}${hint}`,
      { option: "engine", value: engine },
    );
  }
  if (flags.strict && flags.relaxed) {
    throw new SynError("invalid_option", "strict and relaxed exclude each other", {
      options: ["strict", "relaxed"],
    });
  }
  let strict = true;
  let strictSource: SettingSource = "default";
  const failFast = labs.failFast;
  if (flags.strict || flags.relaxed) {
    strict = Boolean(flags.strict);
    strictSource = "flag";
  } else if (failFast) {
    strict = parseFailFast(failFast);
    strictSource = "env";
  }
  const logDir = pickFolder(flags.logDir, labs.logDir, DEFAULT_LOG_DIR, options.cwd);
  const outDir = pickFolder(flags.out, labs.outputDir, DEFAULT_OUT_DIR, options.cwd);
  if (flags.temperature !== undefined && (flags.temperature < 0 || flags.temperature > 2)) {
    throw new SynError(
      "invalid_option",
      `the temperature is between 0 and 2: ${flags.temperature}`,
      { option: "temperature", value: flags.temperature },
    );
  }
  return Object.freeze({
    engine: engine as EngineName,
    seed: flags.seed ?? null,
    temperature: flags.temperature ?? null,
    timeoutS: flags.timeoutS ?? null,
    strict,
    outDir: outDir.value,
    logDir: logDir.value,
    concurrency: flags.concurrency ?? 4,
    sources: Object.freeze({ strict: strictSource, logDir: logDir.source, outDir: outDir.source }),
  });
}
