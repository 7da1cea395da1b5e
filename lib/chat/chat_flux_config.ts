/** Configuration of streaming chat, with the spec's defaults (K-gent API §3 ChatFluxConfig). */
export interface ChatFluxConfig {
  /** Emit THOUGHT turns for chunks (default: no). */
  emit_thoughts: boolean;
  /** Chunks coalesced before one `chunk` event is sent. */
  buffer_chunks: number;
  /** Longest a reply may take, in seconds. */
  stream_timeout: number;
  /** Entropy a session may spend (the Accursed Share); it refills over time. */
  entropy_budget: number;
  /** Seconds between keep-alive pings. */
  heartbeat_interval: number;
}

export const DEFAULT_CHAT_FLUX_CONFIG: Readonly<ChatFluxConfig> = Object.freeze({
  emit_thoughts: false,
  buffer_chunks: 5,
  stream_timeout: 30.0,
  entropy_budget: 0.10,
  heartbeat_interval: 5.0,
});

/** Response tiers by max output tokens (K-gent API §B5). */
export type BudgetTier = "DORMANT" | "WHISPER" | "DIALOGUE" | "DEEP";

export interface BudgetConfig {
  dormant_max: number;
  whisper_max: number;
  dialogue_max: number;
  deep_max: number;
}

export const DEFAULT_BUDGET_CONFIG: Readonly<BudgetConfig> = Object.freeze({
  dormant_max: 0,
  whisper_max: 100,
  dialogue_max: 4000,
  deep_max: 8000,
});

const TIER_ENTROPY: Readonly<Record<BudgetTier, number>> = Object.freeze({
  DORMANT: 0.0,
  WHISPER: 0.001,
  DIALOGUE: 0.04,
  DEEP: 0.08,
});

/** The entropy a reply of this tier costs (K-gent API §B5 mapping). */
export function entropyForTier(tier: BudgetTier): number {
  return TIER_ENTROPY[tier];
}

/** Max output tokens of a tier. */
export function maxTokensForTier(
  tier: BudgetTier,
  config: BudgetConfig = DEFAULT_BUDGET_CONFIG,
): number {
  const key = `${tier.toLowerCase()}_max` as keyof BudgetConfig;
  return config[key];
}

/**
 * The tier a reply gets with `available` entropy left: the wanted tier if affordable,
 * else WHISPER (graceful degradation, K-gent API §9), else none — the caller answers
 * `RATE_LIMITED`.
 */
export function affordableTier(wanted: BudgetTier, available: number): BudgetTier | undefined {
  const epsilon = 1e-12;
  if (entropyForTier(wanted) <= available + epsilon) return wanted;
  if (entropyForTier("WHISPER") <= available + epsilon) return "WHISPER";
  return undefined;
}
