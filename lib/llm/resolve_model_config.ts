import { type ProviderSettings, redactText, type SynConfig, SynError } from "../core/mod.ts";
import type { ModelConfig, ProviderName, Timeouts } from "./types.ts";

/** Labs spec: connect 5 s, read 30 s, total 35 s. */
export const DEFAULT_TIMEOUTS: Readonly<Timeouts> = Object.freeze({
  connectMs: 5_000,
  readMs: 30_000,
  totalMs: 35_000,
});

/** Labs spec `RETRY_MAX=3`: three retries after the first attempt. */
export const MAX_RETRIES = 3;

/** The version header Anthropic's Messages API requires. */
export const ANTHROPIC_VERSION = "2023-06-01";

/** The sections of `SynConfig["llm"]` a provider's settings are in. */
type ProviderFamily = "openai" | "gemini" | "anthropic";

interface ProviderDefaults {
  endpoint: string;
  model: string;
  /** The variables this provider's settings come from (named in errors), and their section. */
  variables?: { key: string; endpoint: string; model: string; settings: ProviderFamily };
  keyRequired: boolean;
}

/**
 * Defaults per provider. `openai-compatible` shares the OPENAI_* variables (the spec lets
 * OPENAI_ENDPOINT point at Ollama, vLLM or llama.cpp); its default is Ollama's local
 * OpenAI-compatible URL, and a key is optional.
 */
export const PROVIDER_DEFAULTS: Readonly<Record<ProviderName, Readonly<ProviderDefaults>>> = Object
  .freeze({
    openai: {
      endpoint: "https://api.openai.com/v1",
      model: "gpt-4o-mini",
      variables: {
        key: "OPENAI_API_KEY",
        endpoint: "OPENAI_ENDPOINT",
        model: "OPENAI_MODEL",
        settings: "openai",
      },
      keyRequired: true,
    },
    "openai-compatible": {
      endpoint: "http://127.0.0.1:11434/v1",
      model: "llama3.2",
      variables: {
        key: "OPENAI_API_KEY",
        endpoint: "OPENAI_ENDPOINT",
        model: "OPENAI_MODEL",
        settings: "openai",
      },
      keyRequired: false,
    },
    gemini: {
      endpoint: "https://generativelanguage.googleapis.com/v1beta",
      model: "gemini-2.0-flash",
      variables: {
        key: "GEMINI_API_KEY",
        endpoint: "GEMINI_ENDPOINT",
        model: "GEMINI_MODEL",
        settings: "gemini",
      },
      keyRequired: true,
    },
    anthropic: {
      endpoint: "https://api.anthropic.com",
      model: "claude-sonnet-4-5",
      variables: {
        key: "ANTHROPIC_API_KEY",
        endpoint: "ANTHROPIC_ENDPOINT",
        model: "ANTHROPIC_MODEL",
        settings: "anthropic",
      },
      keyRequired: true,
    },
    mock: { endpoint: "mock://local", model: "mock-model", keyRequired: false },
  });

/** Options of `resolveModelConfig`. */
export interface ResolveModelConfigOptions {
  /** CLI flags: they win over env. Keys are never accepted here. */
  flags?: { endpoint?: string; model?: string; live?: boolean; timeouts?: Partial<Timeouts> };
  /** The LLM settings and the secrets to keep out of messages. */
  config: Pick<SynConfig, "llm" | "secrets">;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** `v1`, `v1beta`, … from the last version-like path segment of an endpoint, else `unknown`. */
export function apiVersionOf(provider: ProviderName, endpoint: string): string {
  if (provider === "anthropic") return ANTHROPIC_VERSION;
  if (provider === "mock") return "mock";
  let path = endpoint;
  try {
    path = new URL(endpoint).pathname;
  } catch {
    // not a URL: look at the text as it is
  }
  const segments = path.split("/").filter((segment) =>
    /^v\d+(?:(?:alpha|beta)\d*)?$/.test(segment)
  );
  return segments.at(-1) ?? "unknown";
}

function parseEndpoint(endpoint: string, source: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new SynError("config_error", `Endpoint is not a URL: ${source}`, { source });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new SynError("config_error", `Endpoint must use http or https: ${source}`, { source });
  }
  // Keys come from the environment only: a user or password in the URL would be a
  // credential passed by flag, and would travel into logs and provenance.
  if (url.username || url.password) {
    throw new SynError(
      "config_error",
      `Endpoint must not contain a user name or password: ${source}`,
      { source },
    );
  }
  if (url.hash) {
    throw new SynError("config_error", `Endpoint must not have a #fragment: ${source}`, {
      source,
    });
  }
  // A query (e.g. `?api-version=…`) is kept; request paths are inserted before it.
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}${url.search}`;
}

/**
 * Resolves provider, model, endpoint and mode once: endpoint and model come from the
 * flag, else `<PREFIX>_ENDPOINT` / `<PREFIX>_MODEL`, else the default. Mock is the
 * default mode; live needs `LABS_EXTERNAL_LIVE=1` (or `flags.live: true`) and, except
 * for `openai-compatible`, the provider's key — asking for live without the key throws
 * a `SynError` (`config_error`) naming both variables. `flags.live: false` forces mock.
 */
export function resolveModelConfig(
  provider: ProviderName,
  options: ResolveModelConfigOptions,
): ModelConfig {
  const defaults = PROVIDER_DEFAULTS[provider];
  if (!defaults) {
    throw new SynError("config_error", `Unknown provider: ${String(provider)}`, { provider });
  }
  const { llm, secrets } = options.config;
  const flags = options.flags ?? {};
  const variables = defaults.variables;
  const settings: ProviderSettings = variables ? llm[variables.settings] : {};

  const flagEndpoint = nonEmpty(flags.endpoint);
  const envEndpoint = settings.endpoint;
  // Labs spec: keys are never accepted as CLI arguments (they would show in `ps` and shell
  // history), so a flag endpoint that carries one (`?key=…`) is refused; the env may.
  if (flagEndpoint && redactText(flagEndpoint) !== flagEndpoint) {
    throw new SynError(
      "config_error",
      "Endpoint must not carry a key (keys come from the environment): --endpoint",
      { source: "--endpoint" },
    );
  }
  const endpoint = flagEndpoint
    ? parseEndpoint(flagEndpoint, "--endpoint")
    : envEndpoint
    ? parseEndpoint(envEndpoint, variables?.endpoint ?? "endpoint")
    : defaults.endpoint;
  const model = nonEmpty(flags.model) ?? settings.model ?? defaults.model;

  const liveAsked = provider !== "mock" && (flags.live ?? llm.live);
  const keyName = variables?.key ?? "API key";
  const apiKey = settings.apiKey;
  if (liveAsked && defaults.keyRequired && !apiKey) {
    throw new SynError(
      "config_error",
      `Live ${provider} calls need LABS_EXTERNAL_LIVE=1 and ${keyName}: ${keyName} is not set`,
      { provider, variables: ["LABS_EXTERNAL_LIVE", keyName] },
    );
  }
  // A key goes into an HTTP header: characters a header cannot carry (a pasted "sk-…",
  // a line break) would otherwise fail every attempt as a network error.
  if (liveAsked && apiKey !== undefined && /[^\x21-\x7e]/.test(apiKey)) {
    throw new SynError(
      "config_error",
      `${keyName} has characters an API key cannot contain (spaces, line breaks or non-ASCII)`,
      { provider, variables: [keyName] },
    );
  }
  const mode = liveAsked ? "live" : "mock";

  let temperature: number | undefined;
  const temperatureText = provider === "openai" || provider === "openai-compatible"
    ? llm.openaiTemperature
    : undefined;
  if (temperatureText !== undefined) {
    temperature = Number(temperatureText);
    if (!Number.isFinite(temperature) || temperature < 0 || temperature > 2) {
      throw new SynError(
        "config_error",
        `OPENAI_TEMPERATURE must be a number from 0 to 2: ${temperatureText}`,
        { variable: "OPENAI_TEMPERATURE" },
      );
    }
  }

  return Object.freeze({
    provider,
    model,
    endpoint,
    mode,
    apiKey: mode === "live" ? apiKey : undefined,
    apiVersion: apiVersionOf(provider, endpoint),
    temperature,
    timeouts: Object.freeze({ ...DEFAULT_TIMEOUTS, ...definedOnly(flags.timeouts) }),
    maxRetries: MAX_RETRIES,
    secrets: Object.freeze(secrets),
  });
}

/** Drops `undefined` entries so a partial override does not erase defaults. */
export function definedOnly<T extends object>(value: T | undefined): Partial<T> {
  const out: Partial<T> = {};
  if (!value) return out;
  for (const [key, entry] of Object.entries(value)) {
    if (entry !== undefined) (out as Record<string, unknown>)[key] = entry;
  }
  return out;
}
