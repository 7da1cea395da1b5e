/** The Labs spec's common request envelope, before provider-specific mapping. */
export interface RequestEnvelope {
  trace_id: string;
  prompt: string;
  seed: number | null;
  hints: {
    need_sections: string[];
    schema: string;
    strict_json: boolean;
  };
  parameters: {
    model: string;
    temperature: number | null;
    max_tokens: number | null;
  };
}

/** Builds the envelope exactly as the spec shows it. */
export function buildEnvelope(input: {
  traceId: string;
  prompt: string;
  seed: number | null;
  model: string;
  temperature: number | null;
  maxTokens: number | null;
}): RequestEnvelope {
  return {
    trace_id: input.traceId,
    prompt: input.prompt,
    seed: input.seed,
    hints: {
      need_sections: ["shader", "tone", "haptic", "controls", "meta"],
      schema: "nested-synesthetic-asset@>=0.7.3",
      strict_json: true,
    },
    parameters: {
      model: input.model,
      temperature: input.temperature,
      max_tokens: input.maxTokens,
    },
  };
}
