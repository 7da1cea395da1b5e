/**
 * The synthesis prompt: the spec's Jinja template as written, rendered with
 * `@huggingface/jinja`, and its error-correction follow-up.
 */
import { Template } from "@huggingface/jinja";
import type { ParameterAnalysis } from "./analyze_parameters.ts";
import type { ChainInfo, ChainSample } from "./synthesize_deterministic.ts";

/** The synthesis spec's prompt template, word for word. */
export const SYNTHESIS_TEMPLATE =
  `You are a tool composition engine. Given a frequently-observed chain of tool
calls, generate a composite tool definition that replaces the chain with a
single tool.

## Chain Definition
Tools: {{ chain.tools | join(" → ") }}
Support: {{ chain.support }} ({{ chain.support * 100 }}% of sessions)
Confidence: {{ chain.confidence }}
Avg Latency: {{ chain.avg_latency_ms }}ms

## Parameter Analysis
External parameters (expose to caller):
{% for param in external_params %}
- {{ param.name }}: {{ param.type }} (from step {{ param.step }})
{% endfor %}

Internal wiring (connect between steps):
{% for wire in internal_wires %}
- Step {{ wire.from_step }}.output.{{ wire.from_key }} → Step {{ wire.to_step }}.input.{{ wire.to_key }}
{% endfor %}

Constants (hardcode):
{% for const in constants %}
- Step {{ const.step }}.input.{{ const.key }} = {{ const.value }}
{% endfor %}

## Sample Executions
{% for sample in samples %}
### Sample {{ loop.index }} (session: {{ sample.session_id }})
{% for tool in sample.tools %}
Step {{ loop.index0 }}: {{ tool.tool_id }}
  Input: {{ tool.input_params | tojson }}
  Output: {{ tool.output_summary }}
  Outcome: {{ tool.outcome }}
{% endfor %}
{% endfor %}

## Requirements
1. Generate a JSON object conforming to the SynthesizedTool schema.
2. The \`parameters\` field must be valid JSON Schema Draft 2020-12.
3. The \`internal_wiring\` must map every internal connection identified above.
4. The \`error_strategy\` must address observed failure modes from the samples.
5. Mark steps that can run in parallel (max {{ max_parallel_steps }} concurrent).
6. Generate a human-readable \`tool_id\` slug from the tool names.
7. Generate a clear \`description\` summarizing what the composite tool does.`;

/** The spec's error-correction prompt, word for word. */
export const CORRECTION_TEMPLATE = `The previous response had validation errors:
{{ errors | join("\\n") }}

Please correct the output and return a valid SynthesizedTool definition.`;

let synthesis: Template | undefined;
let correction: Template | undefined;

/** The prompt for one chain. Outputs are capped (2,000 characters each) to bound the prompt. */
export function renderSynthesisPrompt(
  chain: ChainInfo,
  analysis: ParameterAnalysis,
  options: { samples: readonly ChainSample[]; maxParallelSteps: number },
): string {
  const { samples, maxParallelSteps } = options;
  synthesis ??= new Template(SYNTHESIS_TEMPLATE);
  return synthesis.render({
    chain: {
      tools: chain.tools,
      support: chain.support,
      confidence: chain.confidence,
      avg_latency_ms: chain.avg_latency_ms,
    },
    external_params: analysis.external,
    internal_wires: analysis.internal_wires,
    constants: analysis.constants.map((item) => ({ ...item, value: JSON.stringify(item.value) })),
    samples: samples.map((sample) => ({
      session_id: sample.session_id,
      tools: sample.tools.map((tool) => ({
        ...tool,
        output_summary: tool.output_summary === null ? "None" : tool.output_summary.slice(0, 2000),
      })),
    })),
    max_parallel_steps: maxParallelSteps,
  });
}

/** The follow-up that lists what was wrong with the first answer. */
export function renderCorrectionPrompt(errors: readonly string[]): string {
  correction ??= new Template(CORRECTION_TEMPLATE);
  return correction.render({ errors: [...errors] });
}
