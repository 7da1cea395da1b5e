import {
  type ControlParameter,
  type InputParameter,
  type JsonObject,
  type SynestheticAsset,
  SYNTH_TYPES,
} from "./asset.ts";
import {
  extractFeatures,
  isTagWord,
  type PromptFeatures,
  type Rgb,
  type ShapeKind,
  STOP_WORDS,
  type SynthType,
} from "./_prompt_features.ts";
import { type SeededRandom, seededRandom } from "./_random.ts";
import { fragmentShader, SHADER_NAMES, VERTEX_SHADER } from "./_shaders.ts";

/** Options of {@linkcode generateDeterministic}. */
export interface DeterministicOptions {
  /** Same prompt + same seed → same asset. Default 0. */
  seed?: number | null;
  /** 0 … 2: how far numbers stray from what the words suggest. Default 0.7. */
  temperature?: number | null;
  /** The prompt already read by the caller; read here otherwise. */
  features?: PromptFeatures;
}

/** The engine's identity, for provenance. */
export const DETERMINISTIC_MODEL = "syn-deterministic-1";

const SHAPES: readonly ShapeKind[] = ["circle", "ring", "box", "waves", "spiral", "star"];
const CHROMATIC = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"];
const MAJOR = [0, 2, 4, 7, 9];
const MINOR = [0, 3, 5, 7, 10];

const round = (value: number, digits = 3) => {
  const factor = 10 ** digits;
  const rounded = Math.round(value * factor) / factor;
  return Object.is(rounded, -0) ? 0 : rounded;
};
const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

function mix(a: Rgb, b: Rgb, t: number): Rgb {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}

function hslToRgb(hue: number, saturation: number, lightness: number): Rgb {
  const f = (n: number) => {
    const k = (n + hue * 12) % 12;
    const a = saturation * Math.min(lightness, 1 - lightness);
    return lightness - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
  };
  return [f(0), f(8), f(4)];
}

function hex(color: Rgb): string {
  return "#" +
    color.map((channel) => Math.round(clamp(channel, 0, 1) * 255).toString(16).padStart(2, "0"))
      .join("");
}

/**
 * Turns a prompt into a complete, schema-0.7.3-valid asset without any network: the
 * prompt's words choose colours, shape, tempo, synth, envelope, haptic intensity and
 * tags; the seed fills what the words leave open. No provenance (the pipeline adds it).
 *
 * ```ts
 * const asset = generateDeterministic("a calm blue ocean at dusk", { seed: 7 });
 * asset.tone.synth.type; // e.g. "Tone.AMSynth"
 * ```
 */
export function generateDeterministic(
  prompt: string,
  options: DeterministicOptions = {},
): SynestheticAsset {
  const features = options.features ?? extractFeatures(prompt);
  const choice = choose(features, options.seed ?? 0, options.temperature ?? 0.7);
  const { title, shape, tempo, intensity, complexity } = choice;
  const tone = toneFor(choice, features.pulsing);
  const description = `${features.excerpt || title}: a ${
    SHADER_NAMES[shape]
  } shader, a ${tone.section.synth.type} at ${tempo} BPM and a haptic pulse at intensity ${intensity}`;
  return {
    name: title,
    description,
    shader: shaderFor(choice),
    tone: tone.section,
    haptic: hapticFor(title, intensity, choice.energy, tempo),
    control: controlsFor(title, choice.radius, intensity),
    modulations: modulationsFor(choice, features.pulsing),
    rule_bundle: rulesFor(choice, tone.rootNote),
    meta_info: {
      title,
      description,
      category: "multimodal",
      complexity,
      tags: tagsFor(features.matched, features.words, shape, choice.synthType, choice.energy),
      prompt: prompt.trim(),
      palette: {
        primary: hex(choice.palette.primary),
        secondary: hex(choice.palette.secondary),
        background: hex(choice.palette.background),
      },
      tempo_bpm: tempo,
    },
  };
}

/** What the words and the seed decide, in the order the seeded random numbers are drawn. */
function choose(features: PromptFeatures, seed: number, temperature: number) {
  const spread = clamp(temperature, 0, 2) / 2;
  const random = seededRandom(`${seed}\u0000${features.words.join(" ")}`);
  const jitter = (amount: number) => (random.next() * 2 - 1) * amount * spread;
  const energy = clamp(features.energy + jitter(0.1), 0, 1);
  const brightness = clamp(features.brightness + jitter(0.1), 0, 1);
  const shape = features.shape ?? random.pick(SHAPES);
  const palette = paletteFor(features.colors, brightness, random);
  const tempo = Math.round(60 + energy * 110 + jitter(8));
  const speed = round(0.3 + energy * 3.2 + jitter(0.2), 2);
  const radius = round(clamp(0.25 + (1 - energy) * 0.3 + jitter(0.08), 0.1, 0.9), 3);
  const synthType = features.synth ?? synthForEnergy(energy, random);
  const intensity = round(clamp(0.15 + energy * 0.75 + jitter(0.05), 0.05, 1), 2);
  return {
    random,
    jitter,
    energy,
    shape,
    palette,
    title: features.title ?? "Untitled",
    tempo,
    speed,
    radius,
    softness: clamp(0.01 + (1 - energy) * 0.08, 0.005, 0.2),
    synthType,
    intensity,
    complexity: energy > 0.7 ? "high" : energy < 0.3 ? "low" : "medium",
  };
}

type Choice = ReturnType<typeof choose>;

/** The shader section: the chosen shape's SDF in the palette, and its parameters. */
function shaderFor({ shape, palette, speed, radius, softness, complexity }: Choice) {
  return {
    name: SHADER_NAMES[shape],
    description: `${SHADER_NAMES[shape]} in ${hex(palette.primary)} and ${
      hex(palette.secondary)
    } over ${hex(palette.background)}, moving at speed ${speed}`,
    vertex_shader: VERTEX_SHADER,
    fragment_shader: fragmentShader(shape, palette, softness),
    uniforms: [
      { name: "u_time", type: "float", stage: "fragment", default: 0 },
      { name: "u_resolution", type: "vec2", stage: "fragment", default: [800, 600] },
      { name: "u_px", type: "float", stage: "fragment", default: 0 },
      { name: "u_py", type: "float", stage: "fragment", default: 0 },
      { name: "u_r", type: "float", stage: "fragment", default: radius },
      { name: "u_speed", type: "float", stage: "fragment", default: speed },
    ],
    input_parameters: [
      shaderParameter("positionX", "u_px", 0, -1, 1, 0.001),
      shaderParameter("positionY", "u_py", 0, -1, 1, 0.001),
      shaderParameter("radius", "u_r", radius, 0.05, 2, 0.001),
      shaderParameter("speed", "u_speed", speed, 0, 8, 0.01),
    ],
    meta_info: { category: "visual", complexity, tags: [shape, "sdf", "animated"] },
  };
}

/** What sets one of our modulations apart; the rest every one of them shares. */
interface ModulationFields {
  waveform: string;
  frequency: number;
  amplitude: number;
  offset: number;
  phase: number;
  min: number;
  max: number;
}

/**
 * One additive modulation of `target`. Its `offset` is added to the target's own value, as
 * the canonical baseline's `offset: 0` means ("move around the value the asset declares"):
 * ours are 0, so the asset rests at what it declares.
 */
function modulation(id: string, target: string, fields: ModulationFields) {
  const { min, max, ...wave } = fields;
  return { id, target, type: "additive", ...wave, scale: 1, scaleProfile: "linear", min, max };
}

/** The radius breathes with the tempo, the detune drifts, the haptic pulses. */
function modulationsFor(choice: Choice, pulsing: boolean) {
  const pulseRate = round(choice.tempo / 60 / (pulsing ? 1 : 4), 3);
  return [
    radiusPulse(choice.radius, pulseRate, pulsing),
    detuneDrift(choice.energy, choice.random),
    hapticPulse(choice.intensity, pulseRate),
  ];
}

/** A pulsing prompt swings the radius by 35 % on the beat, others by 12 % every bar. */
function radiusPulse(radius: number, pulseRate: number, pulsing: boolean) {
  return modulation("radius_pulse", "shader.u_r", {
    waveform: pulsing ? "sine" : "triangle",
    frequency: pulseRate,
    amplitude: round(radius * (pulsing ? 0.35 : 0.12), 3),
    offset: 0,
    phase: 0,
    min: 0.05,
    max: 2,
  });
}

/** The detune drifts faster, wider and harsher with energy; its phase is the seed's. */
function detuneDrift(energy: number, random: SeededRandom) {
  return modulation("detune_drift", "tone.detune", {
    waveform: energy > 0.6 ? "sawtooth" : "sine",
    frequency: round(0.05 + energy * 0.5, 3),
    amplitude: round(5 + energy * 60, 1),
    offset: 0,
    phase: round(random.range(0, Math.PI), 3),
    min: -1200,
    max: 1200,
  });
}

/** The haptic pulses around its intensity, never past 0 or 1. */
function hapticPulse(intensity: number, pulseRate: number) {
  return modulation("haptic_pulse", "haptic.intensity", {
    waveform: "sine",
    frequency: pulseRate,
    amplitude: round(Math.min(intensity, 1 - intensity, 0.25), 2),
    offset: 0,
    phase: 0,
    min: 0,
    max: 1,
  });
}

/** A click plays the root note, pulses the haptic and nudges the shape. */
function rulesFor({ title, intensity, radius }: Choice, rootNote: string) {
  return {
    name: `${title} Rules`,
    description: "A click nudges the shape, triggers a note and a short haptic pulse",
    meta_info: { category: "rule_bundle", complexity: "low", tags: ["click", "multimodal"] },
    rules: [
      {
        id: "click_to_multimodal",
        execution: "client",
        trigger: { type: "pointer_down", params: { button: "left" } },
        effects: [
          {
            channel: "audioTrigger",
            op: "triggerAttackRelease",
            target: "tone.synth",
            value: { note: rootNote, duration: "8n" },
          },
          {
            channel: "hapticPulse",
            op: "set",
            target: "haptic.intensity",
            value: { value: round(Math.min(1, intensity + 0.1), 2) },
          },
          {
            channel: "visualNudge",
            op: "add",
            target: "shader.u_r",
            value: { value: round(radius * 0.1, 3) },
          },
        ],
      },
    ],
  };
}

function paletteFor(colors: Rgb[], brightness: number, random: SeededRandom) {
  const primary: Rgb = colors[0] ?? hslToRgb(random.next(), 0.75, 0.55);
  const secondary: Rgb = colors[1] ??
    (colors[0] ? mix(primary, [1, 1, 1], 0.35) : hslToRgb(random.next(), 0.7, 0.6));
  const darkness = 0.04 + brightness * 0.2;
  const background = mix([0, 0, 0], colors[2] ?? primary, darkness);
  const lift = (color: Rgb): Rgb => mix(color, [1, 1, 1], Math.max(0, brightness - 0.6) * 0.5);
  return {
    primary: lift(primary).map((channel) => round(channel, 3)) as unknown as Rgb,
    secondary: lift(secondary).map((channel) => round(channel, 3)) as unknown as Rgb,
    background: background.map((channel) => round(channel, 3)) as unknown as Rgb,
  };
}

function synthForEnergy(energy: number, random: SeededRandom): SynthType {
  if (energy < 0.3) return random.pick(["Tone.PolySynth", "Tone.AMSynth", "Tone.Synth"]);
  if (energy > 0.7) return random.pick(["Tone.FMSynth", "Tone.MonoSynth", "Tone.DuoSynth"]);
  return random.pick(SYNTH_TYPES);
}

/** The words that steered the engine first, then up to four other words of the prompt. */
function tagsFor(
  matched: string[],
  words: string[],
  shape: ShapeKind,
  synth: SynthType,
  energy: number,
): string[] {
  const mood = energy > 0.7 ? "energetic" : energy < 0.3 ? "calm" : "balanced";
  const other = words.filter((word) =>
    !matched.includes(word) && !STOP_WORDS.has(word) && word.length >= 3 && isTagWord(word) &&
    /\p{L}/u.test(word)
  );
  const tags = [...matched, ...other.slice(0, 4), shape, synth.slice(5).toLowerCase(), mood];
  return [...new Set([...tags.slice(0, 11), "generated"])];
}

function shaderParameter(
  name: string,
  uniform: string,
  value: number,
  min: number,
  max: number,
  step: number,
): InputParameter {
  return {
    name,
    parameter: uniform,
    path: uniform,
    type: "float",
    default: value,
    min,
    max,
    step,
    smoothingTime: 0.1,
  };
}

/**
 * The tone section and the note a click plays. The seeded draws happen in a fixed order
 * (oscillator, envelope, volume, root note): reordering them changes every asset.
 */
function toneFor(choice: Choice, pulsing: boolean) {
  const { title, synthType, energy, tempo, random, jitter } = choice;
  const calm = energy < 0.4;
  const oscillator = oscillatorFor(energy, random);
  const envelope = envelopeFor(energy, jitter);
  const volume = round(-20 + energy * 12 + jitter(2), 1);
  const values = scaleNotes(energy, random);
  const section = {
    name: `${title} Tone`,
    description: `${synthType} with a ${oscillator} oscillator at ${tempo} BPM`,
    synth: {
      type: synthType,
      options: {
        oscillator: { type: oscillator },
        envelope,
        volume,
        portamento: round(calm ? 0.08 : 0.01, 2),
      },
    },
    effects: effectsFor(energy),
    patterns: [patternFor(energy, pulsing, values)],
    parts: [
      { id: "main_loop", pattern: "main_pattern", start: "0:0:0", duration: "4m", loop: true },
    ],
    input_parameters: toneParameters(volume, envelope, tempo),
    meta_info: {
      category: "tone",
      complexity: energy > 0.7 ? "high" : "medium",
      tags: [synthType.slice(5).toLowerCase(), oscillator, `${tempo}bpm`],
      tempo_bpm: tempo,
    },
  } satisfies JsonObject;
  return { section, rootNote: values[0] };
}

/** Soft waveforms for calm prompts, bright ones for energetic prompts. */
function oscillatorFor(energy: number, random: SeededRandom): string {
  if (energy < 0.4) return random.pick(["sine", "triangle", "amsine", "fatsine"]);
  if (energy > 0.7) return random.pick(["sawtooth", "square", "fmsquare", "fatsawtooth"]);
  return random.pick(["triangle", "amtriangle", "fmsine", "pulse"]);
}

/** Calm prompts swell in and fade out slowly; energetic ones strike and stop. */
function envelopeFor(energy: number, jitter: (amount: number) => number) {
  return {
    attack: round(clamp(0.005 + (1 - energy) ** 2 * 1.2 + jitter(0.05), 0.001, 2), 3),
    decay: round(clamp(0.1 + (1 - energy) * 0.5 + jitter(0.05), 0.01, 2), 3),
    sustain: round(clamp(0.2 + (1 - energy) * 0.5 + jitter(0.05), 0, 1), 2),
    release: round(clamp(0.2 + (1 - energy) * 3 + jitter(0.2), 0.01, 5), 2),
  };
}

/** Four notes of a minor (calm) or major pentatonic scale on a seeded root. */
function scaleNotes(energy: number, random: SeededRandom): string[] {
  const calm = energy < 0.4;
  const scale = calm ? MINOR : MAJOR;
  const octave = energy > 0.7 ? 4 : calm ? 3 : 4;
  const root = Math.floor(random.next() * CHROMATIC.length);
  return scale.slice(0, 4).map((interval) => {
    const semitone = root + interval;
    return `${CHROMATIC[semitone % 12]}${octave + Math.floor(semitone / 12)}`;
  });
}

/** Reverb and chorus for calm prompts, distortion and delay for the rest. */
function effectsFor(energy: number) {
  if (energy < 0.4) {
    return [
      {
        type: "Tone.Reverb",
        order: 0,
        options: {
          decay: round(2 + (1 - energy) * 6, 1),
          preDelay: 0.02,
          wet: round(0.3 + (1 - energy) * 0.4, 2),
        },
      },
      {
        type: "Tone.Chorus",
        order: 1,
        options: { frequency: 0.8, delayTime: 3.5, depth: 0.6, wet: 0.25 },
      },
    ];
  }
  return [
    {
      type: "Tone.Distortion",
      order: 0,
      options: { distortion: round(energy * 0.6, 2), wet: round(0.2 + energy * 0.3, 2) },
    },
    {
      type: "Tone.FeedbackDelay",
      order: 1,
      options: { delayTime: "8n", feedback: round(0.2 + energy * 0.3, 2), wet: 0.2 },
    },
  ];
}

/** The looped pattern over the scale notes: faster and shorter with energy. */
function patternFor(energy: number, pulsing: boolean, values: string[]) {
  const calm = energy < 0.4;
  return {
    id: "main_pattern",
    type: "Tone.Pattern",
    options: {
      pattern: energy > 0.6 ? "upDown" : pulsing ? "up" : "random",
      values,
      interval: energy > 0.7 ? "16n" : calm ? "2n" : "8n",
      duration: calm ? "2n" : "16n",
    },
  };
}

function toneParameters(
  volume: number,
  envelope: { attack: number; release: number },
  tempo: number,
): InputParameter[] {
  return [
    toneParameter("Volume", "volume", volume, -60, 6, 0.1, "dB"),
    toneParameter("Detune", "detune", 0, -1200, 1200, 1, "cents"),
    toneParameter("Attack", "envelope.attack", envelope.attack, 0.001, 2, 0.001, "s"),
    toneParameter("Release", "envelope.release", envelope.release, 0.01, 5, 0.01, "s"),
    toneParameter("Tempo", "transport.bpm", tempo, 40, 220, 1, "bpm"),
  ];
}

function toneParameter(
  name: string,
  parameter: string,
  value: number,
  min: number,
  max: number,
  step: number,
  unit: string,
): InputParameter {
  return {
    name,
    parameter,
    path: `tone.${parameter}`,
    type: "float",
    default: value,
    min,
    max,
    step,
    unit,
  };
}

function hapticFor(title: string, intensity: number, energy: number, tempo: number) {
  const frequency = Math.round(60 + energy * 180);
  return {
    name: `${title} Haptics`,
    description:
      `Generic vibration at intensity ${intensity}, pulsing with the ${tempo} BPM pattern`,
    device: {
      type: "generic",
      options: {
        maxIntensity: { value: 1, unit: "linear" },
        maxFrequency: { value: 250, unit: "Hz" },
        pulseRate: { value: round(tempo / 60, 3), unit: "Hz" },
      },
    },
    input_parameters: [
      {
        name: "Intensity",
        parameter: "haptic.intensity",
        path: "haptic.intensity",
        type: "float",
        unit: "linear",
        default: intensity,
        min: 0,
        max: 1,
        step: 0.01,
        smoothingTime: 0.1,
      },
      {
        name: "Frequency",
        parameter: "haptic.frequency",
        path: "haptic.frequency",
        type: "float",
        unit: "Hz",
        default: frequency,
        min: 10,
        max: 250,
        step: 1,
        smoothingTime: 0.1,
      },
    ],
    meta_info: { category: "haptic", complexity: "low", tags: ["vibration", "pulse"] },
  };
}

function control(
  parameter: string,
  label: string,
  value: number,
  min: number,
  max: number,
  step: number,
  axis: "mouse.x" | "mouse.y" | "mouse.wheel",
  sensitivity: number,
  combo: ControlParameter["mappings"][number]["combo"],
  unit = "linear",
): ControlParameter {
  return {
    parameter,
    label,
    type: "float",
    unit,
    default: value,
    min,
    max,
    step,
    smoothingTime: 0.1,
    mappings: [{ combo, action: { axis, sensitivity, curve: "linear", scale: 1 } }],
  };
}

function controlsFor(title: string, radius: number, intensity: number) {
  const drag = { mouseButtons: ["left"], strict: true };
  return {
    name: `${title} Controls`,
    description: "Drag to move the shape (mouse.y inverted), wheel to resize, Shift-drag to detune",
    control_parameters: [
      control("shader.u_px", "Position X", 0, -1, 1, 0.01, "mouse.x", 0.001, drag),
      control("shader.u_py", "Position Y", 0, -1, 1, 0.01, "mouse.y", -0.001, drag),
      control("shader.u_r", "Radius", radius, 0.05, 2, 0.01, "mouse.wheel", 0.01, {
        wheel: true,
        strict: false,
      }),
      control("tone.detune", "Detune", 0, -1200, 1200, 1, "mouse.x", 2, {
        keys: ["Shift"],
        mouseButtons: ["left"],
        strict: true,
      }, "cents"),
      control("haptic.intensity", "Vibration Intensity", intensity, 0, 1, 0.01, "mouse.y", -0.01, {
        keys: ["Ctrl"],
        mouseButtons: ["left"],
        strict: true,
      }),
    ],
    meta_info: { category: "control", complexity: "low", tags: ["mouse", "interactive"] },
  };
}
