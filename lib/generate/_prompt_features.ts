/**
 * What the deterministic engine reads from a prompt: colours, energy, shape, synth
 * character and tags. Pure word lookups, so the same prompt always reads the same.
 */

import type { SYNTH_TYPES } from "./asset.ts";

export type Rgb = readonly [number, number, number];
export type ShapeKind = "circle" | "ring" | "box" | "waves" | "spiral" | "star";
export type SynthType = typeof SYNTH_TYPES[number];

export interface PromptFeatures {
  /** The prompt as given. */
  prompt: string;
  /** The prompt as a log record and the summary show it (see `promptForLog`). */
  logged: string;
  /** Up to 120 characters of it, for a description (see `promptExcerpt`). */
  excerpt: string;
  /** A title from its words, if any word is left after the stop words. */
  title?: string;
  /**
   * Its distinct words that are not stop words and fit a tag (`isTagWord`), in order, at most
   * `MAX_TAGS`: tags when nothing else gives some.
   */
  tagWords: string[];
  /** Lower-case words of the prompt, in order. */
  words: string[];
  /** Colours named or implied by the prompt, in order of appearance (may be empty). */
  colors: Rgb[];
  /** The words the colours came from. */
  colorWords: string[];
  /** 0 (still, calm) … 1 (frantic, angry); 0.5 when the prompt says nothing. */
  energy: number;
  /** 0 (dark) … 1 (bright); 0.5 when the prompt says nothing. */
  brightness: number;
  /** The first shape the prompt names, if any (the engine picks one from the seed otherwise). */
  shape?: ShapeKind;
  /** A synth type the prompt's words ask for, if any. */
  synth?: SynthType;
  /** Whether the prompt asks for a pulse/beat. */
  pulsing: boolean;
  /** Words that matched a table, for tags. */
  matched: string[];
}

const COLORS: Record<string, Rgb> = {
  red: [0.9, 0.12, 0.1],
  crimson: [0.8, 0.05, 0.2],
  scarlet: [1, 0.14, 0],
  orange: [1, 0.5, 0.1],
  amber: [1, 0.75, 0],
  yellow: [1, 0.9, 0.2],
  gold: [1, 0.8, 0.3],
  golden: [1, 0.8, 0.3],
  green: [0.2, 0.8, 0.3],
  emerald: [0.1, 0.7, 0.45],
  lime: [0.6, 1, 0.2],
  teal: [0.1, 0.6, 0.6],
  cyan: [0.2, 0.9, 0.95],
  turquoise: [0.25, 0.88, 0.82],
  blue: [0.15, 0.35, 0.95],
  azure: [0.2, 0.55, 1],
  navy: [0.05, 0.1, 0.4],
  indigo: [0.3, 0.1, 0.6],
  purple: [0.6, 0.2, 0.8],
  violet: [0.55, 0.3, 0.95],
  magenta: [1, 0.1, 0.8],
  pink: [1, 0.5, 0.7],
  white: [0.95, 0.95, 0.95],
  silver: [0.75, 0.78, 0.82],
  grey: [0.5, 0.5, 0.52],
  gray: [0.5, 0.5, 0.52],
  black: [0.04, 0.04, 0.05],
};

/** Scene words imply colours: "ocean" is blue-green, "fire" red-orange. */
const SCENE_COLORS: Record<string, Rgb> = {
  ocean: [0.05, 0.35, 0.6],
  sea: [0.05, 0.4, 0.6],
  water: [0.2, 0.5, 0.8],
  sky: [0.45, 0.7, 1],
  ice: [0.75, 0.92, 1],
  snow: [0.92, 0.95, 1],
  frost: [0.7, 0.88, 0.98],
  fire: [1, 0.35, 0.05],
  flame: [1, 0.45, 0.1],
  flames: [1, 0.45, 0.1],
  lava: [0.95, 0.25, 0.02],
  ember: [0.85, 0.25, 0.05],
  embers: [0.85, 0.25, 0.05],
  sun: [1, 0.85, 0.3],
  sunset: [1, 0.45, 0.3],
  sunrise: [1, 0.65, 0.45],
  dusk: [0.45, 0.25, 0.55],
  dawn: [1, 0.7, 0.55],
  night: [0.05, 0.07, 0.2],
  midnight: [0.03, 0.04, 0.15],
  forest: [0.1, 0.45, 0.2],
  leaf: [0.3, 0.7, 0.2],
  leaves: [0.35, 0.65, 0.2],
  grass: [0.35, 0.75, 0.25],
  neon: [1, 0.1, 0.9],
  blood: [0.6, 0.02, 0.05],
  rose: [0.95, 0.3, 0.45],
  sand: [0.9, 0.8, 0.55],
  desert: [0.9, 0.7, 0.4],
  storm: [0.3, 0.32, 0.4],
  thunder: [0.4, 0.4, 0.55],
  lightning: [0.85, 0.9, 1],
  moon: [0.85, 0.87, 0.95],
  aurora: [0.3, 1, 0.6],
  galaxy: [0.35, 0.15, 0.55],
  space: [0.05, 0.03, 0.12],
};

/** Positive words raise energy, negative words lower it. */
const ENERGY: Record<string, number> = {
  calm: -0.4,
  calming: -0.4,
  gentle: -0.35,
  soft: -0.3,
  peaceful: -0.4,
  serene: -0.4,
  slow: -0.35,
  quiet: -0.35,
  still: -0.4,
  dreamy: -0.3,
  ambient: -0.3,
  relaxing: -0.4,
  sleepy: -0.45,
  lazy: -0.35,
  drifting: -0.25,
  floating: -0.25,
  dusk: -0.15,
  night: -0.15,
  ocean: -0.1,
  meditative: -0.45,
  warm: -0.05,
  angry: 0.45,
  rage: 0.5,
  furious: 0.5,
  fast: 0.35,
  wild: 0.35,
  aggressive: 0.45,
  intense: 0.35,
  chaotic: 0.4,
  loud: 0.3,
  frantic: 0.45,
  energetic: 0.35,
  explosive: 0.45,
  fire: 0.25,
  storm: 0.3,
  thunder: 0.3,
  lightning: 0.3,
  electric: 0.25,
  neon: 0.15,
  pulsing: 0.15,
  pulse: 0.15,
  throbbing: 0.2,
  bouncing: 0.2,
  dancing: 0.2,
  glitch: 0.3,
  racing: 0.4,
  burning: 0.3,
};

const BRIGHTNESS: Record<string, number> = {
  bright: 0.35,
  glowing: 0.25,
  shining: 0.3,
  radiant: 0.3,
  sunny: 0.3,
  sun: 0.2,
  light: 0.15,
  neon: 0.2,
  dark: -0.35,
  dim: -0.25,
  night: -0.3,
  midnight: -0.35,
  shadow: -0.3,
  gloomy: -0.3,
  dusk: -0.15,
  deep: -0.15,
  space: -0.25,
};

const SHAPES: Record<string, ShapeKind> = {
  circle: "circle",
  circles: "circle",
  orb: "circle",
  sphere: "circle",
  ball: "circle",
  bubble: "circle",
  bubbles: "circle",
  dot: "circle",
  disc: "circle",
  moon: "circle",
  sun: "circle",
  ring: "ring",
  rings: "ring",
  halo: "ring",
  donut: "ring",
  eclipse: "ring",
  portal: "ring",
  square: "box",
  box: "box",
  cube: "box",
  grid: "box",
  block: "box",
  tile: "box",
  wave: "waves",
  waves: "waves",
  ocean: "waves",
  sea: "waves",
  ripple: "waves",
  ripples: "waves",
  water: "waves",
  tide: "waves",
  spiral: "spiral",
  vortex: "spiral",
  swirl: "spiral",
  galaxy: "spiral",
  whirlpool: "spiral",
  star: "star",
  stars: "star",
  spark: "star",
  sparks: "star",
  flower: "star",
  fire: "star",
  flame: "star",
  explosion: "star",
};

const SYNTHS: Record<string, SynthType> = {
  bell: "Tone.MetalSynth",
  bells: "Tone.MetalSynth",
  chime: "Tone.MetalSynth",
  chimes: "Tone.MetalSynth",
  metal: "Tone.MetalSynth",
  metallic: "Tone.MetalSynth",
  drum: "Tone.MembraneSynth",
  drums: "Tone.MembraneSynth",
  kick: "Tone.MembraneSynth",
  heartbeat: "Tone.MembraneSynth",
  thump: "Tone.MembraneSynth",
  pluck: "Tone.PluckSynth",
  plucked: "Tone.PluckSynth",
  guitar: "Tone.PluckSynth",
  harp: "Tone.PluckSynth",
  rain: "Tone.PluckSynth",
  raindrops: "Tone.PluckSynth",
  bass: "Tone.MonoSynth",
  deep: "Tone.MonoSynth",
  growl: "Tone.MonoSynth",
  pad: "Tone.PolySynth",
  choir: "Tone.PolySynth",
  chord: "Tone.PolySynth",
  chords: "Tone.PolySynth",
  dreamy: "Tone.PolySynth",
  ambient: "Tone.PolySynth",
  digital: "Tone.FMSynth",
  electric: "Tone.FMSynth",
  robot: "Tone.FMSynth",
  glitch: "Tone.FMSynth",
  laser: "Tone.FMSynth",
  ocean: "Tone.AMSynth",
  shimmer: "Tone.AMSynth",
  tremolo: "Tone.AMSynth",
  wind: "Tone.AMSynth",
  wide: "Tone.DuoSynth",
  thick: "Tone.DuoSynth",
  duet: "Tone.DuoSynth",
  twin: "Tone.DuoSynth",
};

const PULSE_WORDS = new Set([
  "pulse",
  "pulsing",
  "pulses",
  "beat",
  "beating",
  "heartbeat",
  "throbbing",
  "rhythm",
  "rhythmic",
  "breathing",
  "bouncing",
]);

const clamp01 = (value: number) => Math.min(1, Math.max(0, value));

/** Words too common to name or tag anything. */
export const STOP_WORDS = new Set([
  "a",
  "an",
  "the",
  "of",
  "at",
  "in",
  "on",
  "and",
  "with",
  "to",
  "for",
  "by",
  "from",
  "into",
  "over",
  "under",
  "that",
  "is",
  "it",
  "its",
  "this",
  "very",
  "some",
]);

/** Longest title made from a prompt, in characters (code points). */
const MAX_TITLE_CHARS = 80;

/**
 * A title from a prompt's words: the first six that are not stop words, capitalized,
 * at most 80 characters; `undefined` when no word is left.
 */
function titleFromWords(words: readonly string[]): string | undefined {
  const kept = words.filter((word) => !STOP_WORDS.has(word)).slice(0, 6);
  if (!kept.length) return undefined;
  const title = kept.map((word) => word.replace(/^./u, (first) => first.toUpperCase())).join(" ");
  return Array.from(title).slice(0, MAX_TITLE_CHARS).join("").trim();
}

/** Longest tag taken from a prompt's words, in characters (code points). */
export const MAX_TAG_CHARS = 40;
/** Most tags an asset gets from its prompt. */
export const MAX_TAGS = 12;

/**
 * Whether a prompt word may become a tag: one longer than `MAX_TAG_CHARS` is not a word
 * anyone searches for, and would store (part of) the prompt a second time in the asset.
 */
export function isTagWord(word: string): boolean {
  return word.length <= MAX_TAG_CHARS || Array.from(word).length <= MAX_TAG_CHARS;
}

/** Splits a prompt into lower-case words (letters and digits, any script). */
function promptWords(prompt: string): string[] {
  return prompt.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** What a prompt's words tell the engine. */
export function extractFeatures(prompt: string): PromptFeatures {
  const words = promptWords(prompt);
  const colors: Rgb[] = [];
  const colorWords: string[] = [];
  const matched = new Set<string>();
  let energy = 0.5;
  let brightness = 0.5;
  let shape: ShapeKind | undefined;
  let synth: SynthType | undefined;
  let pulsing = false;
  for (const word of words) {
    const color = COLORS[word] ?? SCENE_COLORS[word];
    if (color && !colorWords.includes(word)) {
      colors.push(color);
      colorWords.push(word);
      matched.add(word);
    }
    if (word in ENERGY) {
      energy += ENERGY[word];
      matched.add(word);
    }
    if (word in BRIGHTNESS) {
      brightness += BRIGHTNESS[word];
      matched.add(word);
    }
    if (!shape && word in SHAPES) {
      shape = SHAPES[word];
      matched.add(word);
    }
    if (!synth && word in SYNTHS) {
      synth = SYNTHS[word];
      matched.add(word);
    }
    if (PULSE_WORDS.has(word)) {
      pulsing = true;
      matched.add(word);
    }
  }
  return {
    prompt,
    logged: promptForLog(prompt),
    excerpt: promptExcerpt(prompt),
    title: titleFromWords(words),
    tagWords: [...new Set(words.filter((word) => !STOP_WORDS.has(word) && isTagWord(word)))]
      .slice(0, MAX_TAGS),
    words,
    colors,
    colorWords,
    energy: clamp01(energy),
    brightness: clamp01(brightness),
    shape,
    synth,
    pulsing,
    matched: [...matched],
  };
}

/** Characters of a prompt quoted in a description; the full prompt is kept once, in `meta_info.prompt`. */
const PROMPT_EXCERPT_CHARS = 120;
/** Characters of a prompt written into a log record or the summary. */
const PROMPT_LOG_CHARS = 2000;

/** The prompt cut to `max` characters (on a code point boundary), with "…" when cut. */
function promptExcerpt(prompt: string, max = PROMPT_EXCERPT_CHARS): string {
  const text = prompt.trim();
  if (text.length <= max) return text;
  const points = Array.from(text.slice(0, max + 1)).slice(0, max - 1);
  return `${points.join("").trimEnd()}…`;
}

/** A prompt as a log shows it: whole up to 2,000 characters, else cut with its length said. */
export function promptForLog(prompt: string): string {
  if (prompt.length <= PROMPT_LOG_CHARS) return prompt;
  return `${promptExcerpt(prompt, PROMPT_LOG_CHARS)} (${prompt.length} characters)`;
}
