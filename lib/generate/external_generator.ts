/**
 * External generators: Gemini, OpenAI and Anthropic over `lib/llm`. The generator's code
 * loads at the first `createExternalGenerator`, by a computed specifier: a deterministic
 * `generate` never evaluates it, and `deno run` does not read its graph before a command
 * starts. `deno compile` embeds the implementation by name (scripts/compile_options.ts).
 */
import type * as External from "./_external_generator.ts";

export type {
  ExternalGeneration,
  ExternalGenerator,
  ExternalGeneratorOptions,
  ExternalParameters,
} from "./_external_generator.ts";

/** Creates the generator for one engine over a resolved model config. */
export async function createExternalGenerator(
  ...args: Parameters<typeof External.createExternalGenerator>
): Promise<External.ExternalGenerator> {
  const external: typeof External = await import(
    new URL("./_external_generator.ts", import.meta.url).href
  );
  return external.createExternalGenerator(...args);
}
