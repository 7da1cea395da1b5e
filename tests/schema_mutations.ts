/**
 * Invalid (and a few valid) mutations of the canonical baseline asset, with the issues
 * our schema set must report. Shared by the conformance and embedded-validator tests.
 */
import { parsePointer } from "../lib/core/mod.ts";
import type { ValidationIssue } from "../lib/schema/mod.ts";

export interface Mutation {
  name: string;
  /** `set` puts `value` at `pointer` (creating the last key); `delete` removes it. */
  changes: ({ set: string; value: unknown } | { delete: string })[];
  /** The exact issues, or `[]` for a mutation that stays valid. */
  expected: ValidationIssue[];
}

const p = (path: string, msg: string): ValidationIssue => ({ path, msg });
const set = (pointer: string, value: unknown) => ({ set: pointer, value });
const del = (pointer: string) => ({ delete: pointer });
const cp0 = "/control/control_parameters/0";
const map0 = `${cp0}/mappings/0`;

export const MUTATIONS: Mutation[] = [
  {
    name: "name of wrong type",
    changes: [set("/name", 5)],
    expected: [p("/name", "must be string")],
  },
  {
    name: "empty name",
    changes: [set("/name", "")],
    expected: [p("/name", "must NOT have fewer than 1 characters")],
  },
  {
    name: "name missing",
    changes: [del("/name")],
    expected: [p("", "must have required property 'name'")],
  },
  {
    name: "unknown top-level key",
    changes: [set("/foo", 1)],
    expected: [p("", "must NOT have additional property 'foo'")],
  },
  {
    name: "shader without fragment_shader (X | null reports X)",
    changes: [del("/shader/fragment_shader")],
    expected: [p("/shader", "must have required property 'fragment_shader'")],
  },
  {
    name: "shader vertex_shader not a string",
    changes: [set("/shader/vertex_shader", 1)],
    expected: [p("/shader/vertex_shader", "must be string")],
  },
  {
    name: "shader is a number",
    changes: [set("/shader", 5)],
    expected: [p("/shader", "must be object or null")],
  },
  {
    name: "uniform name null",
    changes: [set("/shader/uniforms/0/name", null)],
    expected: [p("/shader/uniforms/0/name", "must be string")],
  },
  {
    name: "uniform without stage",
    changes: [del("/shader/uniforms/1/stage")],
    expected: [p("/shader/uniforms/1", "must have required property 'stage'")],
  },
  {
    name: "input parameter min as string",
    changes: [set("/shader/input_parameters/0/min", "0")],
    expected: [p("/shader/input_parameters/0/min", "must be number")],
  },
  {
    name: "input_parameters a string",
    changes: [set("/shader/input_parameters", "x")],
    expected: [p("/shader/input_parameters", "must be array or null")],
  },
  {
    name: "unknown shader key",
    changes: [set("/shader/extra", true)],
    expected: [p("/shader", "must NOT have additional property 'extra'")],
  },
  {
    name: "tone synth null",
    changes: [set("/tone/synth", null)],
    expected: [p("/tone/synth", "must be object")],
  },
  {
    name: "tone without synth",
    changes: [del("/tone/synth")],
    expected: [p("/tone", "must have required property 'synth'")],
  },
  {
    name: "tone effect a string",
    changes: [set("/tone/effects/0", "reverb")],
    expected: [p("/tone/effects/0", "must be object")],
  },
  {
    name: "tone input_parameters null",
    changes: [set("/tone/input_parameters", null)],
    expected: [p("/tone/input_parameters", "must be array")],
  },
  {
    name: "tone meta_info a number",
    changes: [set("/tone/meta_info", 3)],
    expected: [p("/tone/meta_info", "must be object or null")],
  },
  {
    name: "tone name null",
    changes: [set("/tone/name", null)],
    expected: [p("/tone/name", "must be string")],
  },
  {
    name: "haptic option value as string",
    changes: [set("/haptic/device/options/maxIntensity/value", "1")],
    expected: [p("/haptic/device/options/maxIntensity/value", "must be number")],
  },
  {
    name: "haptic option without unit",
    changes: [del("/haptic/device/options/maxFrequency/unit")],
    expected: [p("/haptic/device/options/maxFrequency", "must have required property 'unit'")],
  },
  {
    name: "haptic parameter without unit",
    changes: [del("/haptic/input_parameters/0/unit")],
    expected: [p("/haptic/input_parameters/0", "must have required property 'unit'")],
  },
  {
    name: "haptic parameter max a word",
    changes: [set("/haptic/input_parameters/0/max", "high")],
    expected: [p("/haptic/input_parameters/0/max", "must be number or null")],
  },
  {
    name: "haptic device null",
    changes: [set("/haptic/device", null)],
    expected: [p("/haptic/device", "must be object")],
  },
  {
    name: "control axis out of enum",
    changes: [set(`${map0}/action/axis`, "mouse.z")],
    expected: [
      p(
        `${map0}/action/axis`,
        "must be equal to one of the allowed values: 'mouse.x', 'mouse.y', 'mouse.wheel'",
      ),
    ],
  },
  {
    name: "control sensitivity a word",
    changes: [set("/control/control_parameters/1/mappings/0/action/sensitivity", "fast")],
    expected: [p("/control/control_parameters/1/mappings/0/action/sensitivity", "must be number")],
  },
  {
    name: "control value type out of enum",
    changes: [set(`${cp0}/type`, "double")],
    expected: [
      p(
        `${cp0}/type`,
        "must be equal to one of the allowed values: 'float', 'int', 'bool', 'string'",
      ),
    ],
  },
  {
    name: "control label empty",
    changes: [set(`${cp0}/label`, "")],
    expected: [p(`${cp0}/label`, "must NOT have fewer than 1 characters")],
  },
  {
    name: "control step as string",
    changes: [set(`${cp0}/step`, "0.1")],
    expected: [p(`${cp0}/step`, "must be number or null")],
  },
  {
    name: "combo key not a string",
    changes: [set(`${map0}/combo/keys`, [1])],
    expected: [p(`${map0}/combo/keys/0`, "must be string")],
  },
  {
    name: "combo strict a word",
    changes: [set(`${map0}/combo/strict`, "yes")],
    expected: [p(`${map0}/combo/strict`, "must be boolean")],
  },
  {
    name: "unknown control key",
    changes: [set(`${cp0}/unknown`, 1)],
    expected: [p(cp0, "must NOT have additional property 'unknown'")],
  },
  {
    name: "mapping without combo",
    changes: [del(`${map0}/combo`)],
    expected: [p(map0, "must have required property 'combo'")],
  },
  {
    name: "control bundle name null",
    changes: [set("/control/name", null)],
    expected: [p("/control/name", "must be string")],
  },
  {
    name: "modulation waveform out of enum",
    changes: [set("/modulations/0/waveform", "noise")],
    expected: [
      p(
        "/modulations/0/waveform",
        "must be equal to one of the allowed values: 'sine', 'triangle', 'square', 'sawtooth'",
      ),
    ],
  },
  {
    name: "modulation without phase",
    changes: [del("/modulations/0/phase")],
    expected: [p("/modulations/0", "must have required property 'phase'")],
  },
  {
    name: "modulation scaleProfile a number (type, not also enum)",
    changes: [set("/modulations/0/scaleProfile", 1)],
    expected: [p("/modulations/0/scaleProfile", "must be string")],
  },
  {
    name: "modulations a string",
    changes: [set("/modulations", "none")],
    expected: [p("/modulations", "must be array or null")],
  },
  {
    name: "rule_bundle null (not nullable)",
    changes: [set("/rule_bundle", null)],
    expected: [p("/rule_bundle", "must be object")],
  },
  {
    name: "rule bundle meta_info null (not nullable)",
    changes: [set("/rule_bundle/meta_info", null)],
    expected: [p("/rule_bundle/meta_info", "must be object")],
  },
  {
    name: "rule id a number",
    changes: [set("/rule_bundle/rules/0/id", 7)],
    expected: [p("/rule_bundle/rules/0/id", "must be string")],
  },
  {
    name: "rule expr a number",
    changes: [set("/rule_bundle/rules/0/expr", 7)],
    expected: [p("/rule_bundle/rules/0/expr", "must be string, object or null")],
  },
  {
    name: "rule effect a string",
    changes: [set("/rule_bundle/rules/0/effects/0", "x")],
    expected: [p("/rule_bundle/rules/0/effects/0", "must be object")],
  },
  {
    name: "unknown rule key",
    changes: [set("/rule_bundle/rules/0/bogus", 1)],
    expected: [p("/rule_bundle/rules/0", "must NOT have additional property 'bogus'")],
  },
  {
    name: "rule bundle id a fraction",
    changes: [set("/rule_bundle/id", 1.5)],
    expected: [p("/rule_bundle/id", "must be integer or null")],
  },
  {
    name: "rule bundle created_at not a date-time",
    changes: [set("/rule_bundle/created_at", "yesterday")],
    expected: [p("/rule_bundle/created_at", 'must match format "date-time"')],
  },
  {
    name: "asset created_at out of range",
    changes: [set("/created_at", "2025-13-45T00:00:00Z")],
    expected: [p("/created_at", 'must match format "date-time"')],
  },
  {
    name: "meta_info an array",
    changes: [set("/meta_info", [])],
    expected: [p("/meta_info", "must be object or null")],
  },
  {
    name: "description a number",
    changes: [set("/description", 42)],
    expected: [p("/description", "must be string or null")],
  },
  {
    name: "modulation set without modulations",
    changes: [set("/modulation", { name: "m" })],
    expected: [p("/modulation", "must have required property 'modulations'")],
  },
  {
    name: "two problems in two sections",
    changes: [del("/shader/name"), set("/tone/name", 1)],
    expected: [
      p("/shader", "must have required property 'name'"),
      p("/tone/name", "must be string"),
    ],
  },
  {
    name: "key with '/' and '~' is escaped in the pointer",
    changes: [set("/haptic/device/options/a~1b~0c", { value: "x", unit: "Hz" })],
    expected: [p("/haptic/device/options/a~1b~0c/value", "must be number")],
  },
  { name: "shader null stays valid", changes: [set("/shader", null)], expected: [] },
  {
    name: "empty control list stays valid",
    changes: [set("/control/control_parameters", [])],
    expected: [],
  },
  { name: "extra haptic key stays valid", changes: [set("/haptic/extra", 1)], expected: [] },
  { name: "extra tone key stays valid", changes: [set("/tone/custom", { a: 1 })], expected: [] },
];

/** A deep copy of `document` with the mutation's changes applied. */
export function applyMutation(document: unknown, mutation: Mutation): unknown {
  const copy = structuredClone(document);
  for (const change of mutation.changes) {
    const pointer = "set" in change ? change.set : change.delete;
    const tokens = parsePointer(pointer);
    const last = tokens.pop()!;
    let parent = copy as Record<string, unknown>;
    for (const token of tokens) parent = parent[token] as Record<string, unknown>;
    if ("set" in change) {
      if (Array.isArray(parent)) parent[Number(last)] = change.value;
      else {
        Object.defineProperty(parent, last, {
          value: change.value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    } else {
      delete parent[last];
    }
  }
  return copy;
}
