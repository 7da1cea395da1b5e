/**
 * Which runs of a held-out session's calls a promoted composite can stand in for, and with
 * which arguments: the composite's steps are mapped onto the recorded calls — a
 * `{parameter}` input takes the recorded value, a `{constant}` must equal it, a `{wire: i}`
 * must be what the wire finds in step i's recorded output (the runtime's `wiredValue`) —
 * and a recorded call may have no key its step does not set. Pure: the recordings come in,
 * a plan of calls goes out.
 */
import { isDeepStrictEqual } from "node:util";
import type { SynthesizedTool } from "../lib/synthesize/mod.ts";
import { wiredValue } from "../lib/tools/mod.ts";

/** One call of a session as an earlier run observed it. */
export interface ObservedCall {
  name: string;
  args: Record<string, unknown>;
  /** The call's output as the proxy's step executor sees it (text, or structured content). */
  output: unknown;
  ok: boolean;
}

/** One call to send: an original call, or a composite standing in for `covers`. */
export type PlannedCall =
  | { kind: "call"; index: number; name: string; args: Record<string, unknown> }
  | {
    kind: "composite";
    tool_id: string;
    name: string;
    args: Record<string, unknown>;
    covers: number[];
  };

/**
 * The composite's arguments for the recorded calls `calls` (one per step, in order), or
 * why the composite cannot express them.
 */
export function compositeArguments(
  tool: SynthesizedTool,
  calls: readonly ObservedCall[],
): Record<string, unknown> | string {
  if (calls.length !== tool.steps.length) return "the chain's length differs";
  const args: Record<string, unknown> = {};
  const absent = new Set<string>();
  for (const [index, step] of tool.steps.entries()) {
    const call = calls[index];
    if (call.name !== step.tool_id) return `step ${index} is ${step.tool_id}, not ${call.name}`;
    if (!call.ok) return `the recorded call of step ${index} failed`;
    if (step.condition) return `step ${index} has a condition`;
    const extra = Object.keys(call.args).find((key) => !Object.hasOwn(step.inputs, key));
    if (extra !== undefined) return `step ${index} does not set ${extra}`;
    for (const [key, source] of Object.entries(step.inputs)) {
      const recorded = call.args[key];
      const has = Object.hasOwn(call.args, key);
      if ("parameter" in source) {
        const name = source.parameter;
        if (!has) absent.add(name);
        else if (Object.hasOwn(args, name) && !isDeepStrictEqual(args[name], recorded)) {
          return `parameter ${name} takes two values`;
        } else args[name] = recorded;
      } else if ("constant" in source) {
        if (!has || !isDeepStrictEqual(source.constant, recorded)) {
          return `step ${index}'s ${key} is not the constant`;
        }
      } else {
        const wire = tool.internal_wiring.find((item) =>
          item.to_step === index && item.to_key === key
        );
        const wired = wire ? wiredValue(calls[wire.from_step].output, wire.from_key) : undefined;
        if (!has || !isDeepStrictEqual(wired, recorded)) {
          return `step ${index}'s ${key} is not what the wire finds`;
        }
      }
    }
  }
  const both = [...absent].find((name) => Object.hasOwn(args, name));
  if (both !== undefined) return `parameter ${both} is set for one step and not another`;
  const required = Array.isArray(tool.parameters.required) ? tool.parameters.required : [];
  const missing = required.find((name) => !Object.hasOwn(args, String(name)));
  if (missing !== undefined) return `required parameter ${missing} has no recorded value`;
  return args;
}

/**
 * The calls to send instead of `calls`: left to right, at each position the longest
 * composite whose chain starts there and whose arguments express the recorded calls
 * stands in for them; every other call is sent as it was.
 */
export function planReplacement(
  calls: readonly ObservedCall[],
  composites: readonly SynthesizedTool[],
): PlannedCall[] {
  const byLength = [...composites].sort((a, b) =>
    b.steps.length - a.steps.length || a.tool_id.localeCompare(b.tool_id)
  );
  const plan: PlannedCall[] = [];
  for (let at = 0; at < calls.length;) {
    const found = byLength.map((tool) => ({
      tool,
      args: compositeArguments(tool, calls.slice(at, at + tool.steps.length)),
    })).find((candidate) => typeof candidate.args !== "string");
    if (found && typeof found.args !== "string") {
      const covers = found.tool.steps.map((_, offset) => at + offset);
      plan.push({
        kind: "composite",
        tool_id: found.tool.tool_id,
        name: `composite.${found.tool.tool_id}`,
        args: found.args,
        covers,
      });
      at += covers.length;
    } else {
      plan.push({ kind: "call", index: at, name: calls[at].name, args: calls[at].args });
      at += 1;
    }
  }
  return plan;
}

/** Whether any composite's chain of tool names occurs in `calls`. */
export function chainNamesOccur(
  calls: readonly { name: string }[],
  composites: readonly SynthesizedTool[],
): boolean {
  return composites.some((tool) =>
    calls.some((_, at) =>
      at + tool.steps.length <= calls.length &&
      tool.steps.every((step, offset) => calls[at + offset].name === step.tool_id)
    )
  );
}

/** Where a composite's chain of tool names occurs in `calls`, and why it cannot stand in. */
export function chainOccurrences(
  calls: readonly ObservedCall[],
  composites: readonly SynthesizedTool[],
): { tool_id: string; at: number; reason?: string }[] {
  const found: { tool_id: string; at: number; reason?: string }[] = [];
  for (const tool of composites) {
    const names = tool.steps.map((step) => step.tool_id);
    for (let at = 0; at + names.length <= calls.length; at++) {
      if (!names.every((name, offset) => calls[at + offset].name === name)) continue;
      const args = compositeArguments(tool, calls.slice(at, at + names.length));
      found.push({
        tool_id: tool.tool_id,
        at,
        ...(typeof args === "string" ? { reason: args } : {}),
      });
    }
  }
  return found;
}

/**
 * Whether a composite step's returned output is the original call's output: equal as
 * values, or as text (an original text output that is JSON equals its parsed value).
 */
export function sameOutput(returned: unknown, original: unknown): boolean {
  if (isDeepStrictEqual(returned, original)) return true;
  const parse = (value: unknown) => {
    if (typeof value !== "string") return value;
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  };
  return isDeepStrictEqual(parse(returned), parse(original));
}
