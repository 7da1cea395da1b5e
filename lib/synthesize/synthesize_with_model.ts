/**
 * The live synthesizer: the spec's prompt to a language model (through `lib/llm`, asking for
 * the `SynthesizedTool` schema as structured output, temperature 0), the five checks on
 * its answer, one error-correction retry, then `SynthesisError`.
 */
import type { LanguageModel } from "../llm/mod.ts";
import { renderCorrectionPrompt, renderSynthesisPrompt } from "./synthesis_prompt.ts";
import { analyzeSamples, type ChainInfo, type ChainSample } from "./synthesize_deterministic.ts";
import { sessionConstantProblems } from "./synthesized_tool.ts";
import {
  checkSynthesizedTool,
  SynthesisError,
  SYNTHESIZED_TOOL_SCHEMA,
  type SynthesizedTool,
  withParallelism,
} from "./synthesized_tool.ts";

export interface ModelSynthesisOptions {
  /** The model that writes the composite. */
  model: LanguageModel;
  maxParallelSteps: number;
  /** Corrections asked for after a failing answer (the spec's `max_retries_on_invalid`). */
  maxRetriesOnInvalid: number;
  /** The tools their servers annotated read-only where the samples were recorded. */
  readOnlyTools?: ReadonlySet<string>;
}

export async function synthesizeWithModel(
  chain: ChainInfo,
  samples: readonly ChainSample[],
  options: ModelSynthesisOptions,
): Promise<SynthesizedTool> {
  const { model } = options;
  const analysis = analyzeSamples(samples);
  const prompt = renderSynthesisPrompt(chain, analysis, {
    samples,
    maxParallelSteps: options.maxParallelSteps,
  });
  const messages: { role: "user" | "assistant"; content: string }[] = [];
  let next = prompt;
  let problems: string[] = [];
  for (let attempt = 0; attempt <= options.maxRetriesOnInvalid; attempt++) {
    const result = await model.generate({
      messages: [...messages],
      prompt: next,
      jsonSchema: SYNTHESIZED_TOOL_SCHEMA,
      schemaName: "SynthesizedTool",
      temperature: 0,
      // The five checks below say what is wrong; the model layer only wants an object.
      validateJson: (value) =>
        value !== null && typeof value === "object" && !Array.isArray(value)
          ? []
          : ["the answer must be a JSON object"],
    });
    problems = await checkSynthesizedTool(result.json, chain.tools);
    if (!problems.length) {
      problems = sessionConstantProblems(result.json as SynthesizedTool, samples);
    }
    if (!problems.length) {
      return withParallelism(result.json as SynthesizedTool, {
        maxParallel: options.maxParallelSteps,
        readOnlyTools: options.readOnlyTools,
      });
    }
    messages.push({ role: "user", content: next }, { role: "assistant", content: result.text });
    next = renderCorrectionPrompt(problems);
  }
  throw new SynthesisError(
    `${
      chain.tools.join(">")
    }: the model's tool fails its checks after ${options.maxRetriesOnInvalid} correction(s)`,
    problems,
  );
}
