import assert from "node:assert/strict";
import { axisChange, comboActive, describeMapping, normalizeKey } from "./page/controls.js";
import { modulate, modulationOutput, scaleProfileValue, waveValue } from "./page/modulation.js";
import { collectParameters, parameterKey, ParameterState } from "./page/parameters.js";
import { assembleSource, excerpt, fitsUniform, mapInfoLog } from "./page/shader_stage.js";
import { dbToGain, optionNumber, readTone } from "./page/tone_voice.js";

const baseline = JSON.parse(
  await Deno.readTextFile(
    new URL("../../schemas/examples/canonical-baseline.json", import.meta.url),
  ),
);

const near = (actual: number, expected: number, label = "") =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `${label} ${actual} ≉ ${expected}`);

Deno.test("waveforms have the right values at quarter periods", () => {
  const at = (waveform: string) => [0, 0.25, 0.5, 0.75].map((c) => waveValue(waveform, c));
  at("sine").forEach((v, i) => near(v, [0, 1, 0, -1][i], `sine ${i}`));
  at("triangle").forEach((v, i) => near(v, [0, 1, 0, -1][i], `triangle ${i}`));
  assert.deepEqual(at("square"), [1, 1, -1, -1]);
  at("sawtooth").forEach((v, i) => near(v, [0, 0.5, -1, -0.5][i], `sawtooth ${i}`));
  assert.equal(waveValue("noise", 0.3), 0);
  near(waveValue("sine", -0.75), 1, "negative time");
});

Deno.test("scale profiles keep the sign and the ends", () => {
  for (const profile of ["linear", "exponential", "logarithmic", "sine", "cosine"]) {
    near(scaleProfileValue(profile, 1), 1, profile);
    near(scaleProfileValue(profile, -1), -1, profile);
    near(scaleProfileValue(profile, 0), 0, profile);
  }
  near(scaleProfileValue("exponential", 0.5), 0.25);
});

Deno.test("modulations add or multiply, with phase in radians, scale and clamping", () => {
  const breathe = baseline.modulations[0];
  near(modulationOutput(breathe, 1), 0.05, "quarter period of 0.25 Hz");
  near(modulate(0.3, [breathe], 1), 0.35);
  const phased = { ...breathe, phase: Math.PI / 2 };
  near(modulationOutput(phased, 0), 0.05, "phase shifts by a quarter");
  const times = { ...breathe, type: "multiplicative", offset: 1, amplitude: 0.5, scale: 2 };
  near(modulate(0.3, [times], 1), 0.3 * 3);
  near(modulate(0.04, [{ ...breathe, amplitude: -1 }], 1), 0.05, "clamped to min");
});

Deno.test("combos: keys, buttons, wheel and strict", () => {
  const held = (keys: string[], buttons: string[], wheel = false) => ({
    keys: new Set(keys.map(normalizeKey)),
    buttons: new Set(buttons),
    wheel,
  });
  const shiftLeft = { keys: ["Shift"], mouseButtons: ["left"], strict: true };
  assert.equal(comboActive(shiftLeft, held(["shift"], ["left"])), true);
  assert.equal(comboActive(shiftLeft, held([], ["left"])), false);
  assert.equal(comboActive(shiftLeft, held(["shift", "alt"], ["left"])), false, "strict");
  assert.equal(
    comboActive({ ...shiftLeft, strict: false }, held(["shift", "alt"], ["left"])),
    true,
  );
  assert.equal(comboActive({ keys: ["Ctrl"] }, held(["Control"], [])), true, "Ctrl is Control");
  assert.equal(comboActive({ wheel: true }, held([], [])), false);
  assert.equal(comboActive({ wheel: true }, held([], [], true)), true);
  assert.equal(comboActive(undefined, held([], [])), true);
});

Deno.test("axis changes: sensitivity × scale, inverted axes, curves and discrete steps", () => {
  near(axisChange({ sensitivity: 0.005 }, 10, undefined), 0.05);
  near(axisChange({ sensitivity: -0.005, scale: 2 }, 10, undefined), -0.1);
  assert.ok(axisChange({ sensitivity: 1, curve: "exponential" }, 20, undefined) > 20);
  assert.ok(Math.abs(axisChange({ sensitivity: 1, curve: "sine" }, 100, undefined)) <= 20);
  near(axisChange({ sensitivity: 0.001, curve: "discrete" }, 3, 0.5), 0.5, "at least a step");
  near(axisChange({ sensitivity: 0.1, curve: "discrete" }, 26, 1), 3);
});

Deno.test("mappings in words mark inverted axes", () => {
  const [x, y] = baseline.control.control_parameters.map((c: { mappings: unknown[] }) =>
    c.mappings[0]
  );
  assert.equal(describeMapping(x), "hold left mouse · mouse.x × 0.005");
  assert.equal(describeMapping(y), "hold left mouse · mouse.y × -0.005 (inverted: up increases)");
  assert.equal(
    describeMapping({
      combo: { keys: ["Shift"], wheel: true, strict: true },
      action: { axis: "mouse.wheel", sensitivity: -1, curve: "exponential" },
    }),
    "hold Shift + wheel only · mouse.wheel × -1, exponential (inverted)",
  );
});

Deno.test("parameters: one table keyed by path, from uniforms, inputs, controls and modulations", () => {
  const table = collectParameters(baseline);
  assert.equal(parameterKey("u_r", new Set()), "shader.u_r");
  assert.equal(parameterKey("tone.detune", new Set()), "tone.detune");
  assert.equal(parameterKey("visual.px", new Set()), "visual.px");
  const px = table.get("shader.u_px")!;
  assert.equal(px.label, "Position X");
  assert.equal(px.mappings.length, 1);
  assert.equal(px.slider, true);
  assert.equal(table.get("shader.u_r")!.modulations.length, 1);
  assert.equal(table.get("shader.u_time")!.slider, false);
  assert.deepEqual(table.get("shader.u_resolution")!.initial, [800, 600]);
  assert.equal(table.get("tone.volume")!.initial, -12);
  assert.equal(table.get("haptic.intensity")!.max, 1);
});

Deno.test("parameter state clamps, rounds ints, smooths and modulates", () => {
  const table = collectParameters({
    shader: {
      uniforms: [{ name: "u_n", type: "int", default: 2 }],
      input_parameters: [
        { name: "n", parameter: "u_n", type: "int", default: 2, min: 0, max: 5 },
      ],
    },
    haptic: {
      input_parameters: [{
        name: "i",
        parameter: "haptic.intensity",
        default: 0,
        min: 0,
        max: 1,
        smoothingTime: 1,
      }],
    },
    modulations: [{
      id: "m",
      target: "haptic.intensity",
      type: "additive",
      waveform: "square",
      frequency: 1,
      amplitude: 0.1,
      offset: 0,
      phase: 0,
    }],
  });
  const state = new ParameterState(table);
  state.set("shader.u_n", 7.4);
  state.tick(0.016);
  assert.equal(state.value("shader.u_n", 0), 5);
  state.set("haptic.intensity", 1);
  state.tick(1);
  near(state.current.get("haptic.intensity") as number, 1 - Math.exp(-1), "one time constant");
  state.tick(Infinity);
  near(state.value("haptic.intensity", 0.25) as number, 1.1, "modulation on top");
  state.set("haptic.intensity", 0);
  state.jump("haptic.intensity");
  assert.equal(state.current.get("haptic.intensity"), 0, "a jump skips the glide");
  state.set("unknown.key", 3);
  assert.equal(state.value("unknown.key", 0), undefined);
});

Deno.test("shader sources: a Three.js-style source becomes GLSL ES 3.00 with lines mapped back", () => {
  const vertex = assembleSource("vertex", baseline.shader.vertex_shader);
  const lines = vertex.text.split("\n");
  assert.equal(lines[0], "#version 300 es");
  assert.ok(lines.includes("in vec3 position;"));
  assert.ok(lines.includes("#define attribute in"));
  assert.equal(vertex.origin.at(-1), 1, "the asset's line 1 is the last line");
  const fragment = assembleSource(
    "fragment",
    "#define N 3\nvoid main() {\n  gl_FragColor = vec4(1);\n}",
  );
  assert.ok(fragment.text.includes("#define gl_FragColor pc_fragColor"));
  const own = assembleSource(
    "fragment",
    "#version 300 es\nout vec4 c;\nvoid main() { c = vec4(1); }",
  );
  assert.equal(own.text.split("\n")[0], "#version 300 es");
  assert.ok(!own.text.includes("pc_fragColor"), "an ES 3.00 source keeps its own output");
  assert.deepEqual(own.origin.filter((n) => n > 0), [1, 2, 3]);
  const es1 = assembleSource(
    "vertex",
    "#version 100\nvoid main() { gl_Position = vec4(position, 1.0); }",
  );
  assert.ok(es1.text.includes("attribute vec3 position;"));
  const declared = assembleSource(
    "vertex",
    "in vec3 position; void main() { gl_Position = vec4(position, 1.0); }",
  );
  assert.ok(
    !declared.text.includes("in vec3 position;\n"),
    "a declared attribute is not redeclared",
  );
});

Deno.test("compiler logs name the asset's own lines and show the line", () => {
  const source = "void main() {\n  float x = 1.0\n}";
  const { origin } = assembleSource("fragment", source);
  const reported = origin.indexOf(3) + 1; // the compiler's line of the asset's line 3
  const log = `ERROR: 0:${reported}: '}' : syntax error\nWARNING: 0:1: something\n\0`;
  assert.deepEqual(mapInfoLog("fragment", log, origin, source), [
    { stage: "fragment", line: 3, message: "'}' : syntax error", source: "}" },
  ]);
  assert.deepEqual(mapInfoLog("link", "a link problem", [], ""), [
    { stage: "link", line: 0, message: "a link problem", source: "" },
  ]);
  const long = `${"float a = 1.0; ".repeat(20)}int i = j; ${"float b = 2.0; ".repeat(20)}`;
  const shown = excerpt(long, "'j' : undeclared identifier");
  assert.ok(shown.length <= 162 && shown.includes("int i = j;"), shown);
});

Deno.test("uniform values are checked against their types before WebGL sees them", () => {
  assert.equal(fitsUniform("float", 1), true);
  assert.equal(fitsUniform("float", "1"), false);
  assert.equal(fitsUniform("vec2", [1, 2]), true);
  assert.equal(fitsUniform("vec3", [1, 2]), false);
  assert.equal(fitsUniform("vec3", [1, 2, NaN]), false);
  assert.equal(fitsUniform("bool", true), true);
});

Deno.test("tones: both option spellings, {value, unit} numbers, oscillator kinds and effect order", () => {
  const plan = readTone(baseline.tone);
  assert.equal(plan.synth, "Synth");
  assert.equal(plan.wave, "triangle");
  assert.deepEqual(plan.envelope, { attack: 0.02, decay: 0.2, sustain: 0.4, release: 0.8 });
  assert.equal(plan.volume, -12);
  assert.deepEqual(plan.effects.map((e) => [e.type, e.supported]), [["Reverb", true]]);
  const flat = readTone({
    synth: { type: "Tone.Synth", volume: -9, oscillator: { type: "fatsine4" } },
    effects: [
      { type: "Tone.Reverb", order: 2 },
      { type: "Tone.Chorus", order: 1 },
      { type: "Tone.Mystery", order: 0 },
    ],
  });
  assert.equal(flat.volume, -9);
  assert.deepEqual([flat.modulation, flat.wave, flat.partials], ["fat", "sine", 4]);
  assert.deepEqual(flat.effects.map((e) => [e.type, e.supported]), [
    ["Mystery", false],
    ["Chorus", true],
    ["Reverb", true],
  ]);
  const units = readTone({
    synth: {
      type: "Tone.MonoSynth",
      options: {
        oscillator: { type: "amtriangle" },
        envelope: {
          attack: { unit: "s", value: 0.1 },
          sustain: { value: 0.6, unit: "normalRange" },
        },
        filter: { type: "bandpass", frequency: { value: 800, unit: "Hz" }, Q: { value: 2 } },
      },
    },
  });
  assert.equal(units.envelope.attack, 0.1);
  assert.equal(units.envelope.sustain, 0.6);
  assert.deepEqual(units.filter, { type: "bandpass", frequency: 800, Q: 2 });
  assert.equal(units.modulation, "am");
  assert.equal(optionNumber("3.5", 0), 3.5);
  assert.equal(optionNumber("loud", 1), 1);
  near(dbToGain(-20), 0.1);
});
