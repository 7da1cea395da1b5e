import { publicEndpoint } from "../core/mod.ts";
import type { JsonObject, Provenance, SynestheticAsset } from "./asset.ts";

/** What {@linkcode buildProvenance} needs; every field is recorded as given. */
export interface ProvenanceInput {
  engine: string;
  endpoint: string | null;
  apiVersion: string;
  model: string;
  temperature: number | null;
  seed: number | null;
  traceId: string;
  mode: Provenance["mode"];
  /** Milliseconds since the epoch (from the injected clock). */
  now: number;
  /** core `responseHash` of the raw answer. */
  responseHash: string;
  /** Sections the normalizer filled from the baseline. */
  filledSections?: readonly string[];
}

/**
 * The Labs spec's provenance block (plus the optional `response_hash`), with exactly
 * its fields. It never holds a key: the endpoint is stripped of query and credentials.
 */
export function buildProvenance(input: ProvenanceInput): Provenance {
  return {
    engine: input.engine,
    api_endpoint: input.endpoint === null ? null : safeEndpoint(input.endpoint),
    api_version: input.apiVersion,
    model: input.model,
    parameters: { temperature: input.temperature, seed: input.seed },
    trace_id: input.traceId,
    mode: input.mode,
    timestamp: new Date(input.now).toISOString(),
    response_hash: input.responseHash,
    ...(input.filledSections?.length ? { filled_sections: [...input.filledSections] } : {}),
  };
}

/**
 * The provenance of a generation that failed: what was known when it stopped (engine,
 * endpoint, model, parameters, trace id, mode, timestamp), and `response_hash` only when an
 * answer arrived. The Labs spec wants provenance in every `external.jsonl` entry.
 */
export type FailureProvenance = Omit<Provenance, "response_hash"> & {
  response_hash?: string;
};

/** {@linkcode buildProvenance} for a failed generation; `responseHash` when an answer came. */
export function buildFailureProvenance(
  input: Omit<ProvenanceInput, "responseHash" | "filledSections"> & { responseHash?: string },
): FailureProvenance {
  const { response_hash: _none, ...known } = buildProvenance({ ...input, responseHash: "" });
  return input.responseHash ? { ...known, response_hash: input.responseHash } : known;
}

/** An endpoint without user info, query or fragment (where keys could hide), no trailing `/`. */
export function safeEndpoint(endpoint: string): string {
  return publicEndpoint(endpoint).replace(/\/$/, "");
}

/** A copy of the asset with `meta_info.provenance` set (Labs spec: mandatory). */
export function withProvenance(asset: SynestheticAsset, provenance: Provenance): SynestheticAsset {
  return {
    ...asset,
    meta_info: { ...(asset.meta_info as JsonObject), provenance } as SynestheticAsset["meta_info"],
  };
}
