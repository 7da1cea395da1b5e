// The asset's tone as a Web Audio voice approximating its Tone.js synth, options and
// effects. `readTone` (pure, Deno-tested) turns the JSON into a plan; `buildVoice` builds
// the graph on an AudioContext (or OfflineAudioContext) and plays notes through it.

import { finite } from "./modulation.js";

/** A Tone.js option may be a number or `{value, unit}`; anything else is the fallback. */
export function optionNumber(value, fallback) {
  if (value !== null && typeof value === "object" && "value" in value) {
    return finite(/** @type {any} */ (value).value, fallback);
  }
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) {
    return Number(value);
  }
  return finite(value, fallback);
}

const EFFECTS = new Set([
  "Reverb",
  "Freeverb",
  "JCReverb",
  "Chorus",
  "FeedbackDelay",
  "PingPongDelay",
  "AutoPanner",
  "Tremolo",
  "Vibrato",
  "Distortion",
  "Chebyshev",
  "BitCrusher",
  "Filter",
  "AutoFilter",
  "Phaser",
  "Compressor",
]);

/**
 * @typedef {object} TonePlan
 * @property {string} synth       Synth, FMSynth, AMSynth, MonoSynth, NoiseSynth…
 * @property {string} wave        sine, square, triangle, sawtooth
 * @property {string} modulation  "", am, fm or fat
 * @property {number} partials    harmonics of the wave (0: the plain wave)
 * @property {number} harmonicity
 * @property {number} modulationIndex
 * @property {{attack: number, decay: number, sustain: number, release: number}} envelope
 * @property {{type: BiquadFilterType, frequency: number, Q: number} | null} filter
 * @property {number} volume      dB
 * @property {number} detune      cents
 * @property {{type: string, supported: boolean, options: Record<string, any>}[]} effects
 */

/**
 * The plan of a tone section: options read from `synth.options` or from `synth` itself
 * (both spellings occur), values given as numbers or `{value, unit}`.
 * @param {Record<string, any>} tone
 * @returns {TonePlan}
 */
export function readTone(tone) {
  const synth = objectOr(tone?.synth);
  const options = { ...synth, ...objectOr(synth.options) };
  const voice = objectOr(options.voice);
  const oscillator = { ...objectOr(voice.oscillator), ...objectOr(options.oscillator) };
  const envelopeIn = { ...objectOr(voice.envelope), ...objectOr(options.envelope) };
  const type = String(synth.type ?? "Tone.Synth").replace(/^Tone\./, "");
  const match = /^(am|fm|fat|pwm|pulse)?(sine|square|triangle|sawtooth)?(\d+)?$/.exec(
    String(oscillator.type ?? "").toLowerCase(),
  ) ?? [];
  const filterIn = objectOr(options.filter);
  const filter = type === "MonoSynth" || Object.keys(filterIn).length > 0
    ? {
      type: /** @type {BiquadFilterType} */ (String(filterIn.type ?? "lowpass")),
      frequency: optionNumber(filterIn.frequency, 1200),
      Q: optionNumber(filterIn.Q, 1),
    }
    : null;
  const modulation = match[1] === "pwm" || match[1] === "pulse" ? "" : match[1] ?? "";
  return {
    synth: type,
    wave: match[2] ?? (match[1] === "pwm" || match[1] === "pulse" ? "square" : "sine"),
    modulation: type === "FMSynth" ? "fm" : type === "AMSynth" ? "am" : modulation,
    partials: Math.min(32, Number(match[3] ?? 0)),
    harmonicity: optionNumber(options.harmonicity ?? oscillator.harmonicity, 1),
    modulationIndex: optionNumber(options.modulationIndex ?? oscillator.modulationIndex, 2),
    envelope: {
      attack: Math.max(0.001, optionNumber(envelopeIn.attack, 0.01)),
      decay: Math.max(0.001, optionNumber(envelopeIn.decay, 0.1)),
      sustain: Math.min(1, Math.max(0, optionNumber(envelopeIn.sustain, 0.5))),
      release: Math.max(0.001, optionNumber(envelopeIn.release, 0.5)),
    },
    filter: filter && Number.isFinite(filter.frequency) ? filter : null,
    volume: optionNumber(options.volume, 0),
    detune: optionNumber(options.detune, 0),
    effects: listOf(tone?.effects)
      .map((effect, index) => ({ effect, index }))
      .sort((a, b) => finite(a.effect?.order, a.index) - finite(b.effect?.order, b.index))
      .map(({ effect }) => {
        const name = String(effect?.type ?? "").replace(/^Tone\./, "");
        return { type: name, supported: EFFECTS.has(name), options: objectOr(effect?.options) };
      }),
  };
}

/** Decibels as a gain factor. */
export function dbToGain(db) {
  return Math.pow(10, db / 20);
}

/** The frequency of a MIDI note number. */
export function midiToHz(note) {
  return 440 * Math.pow(2, (note - 69) / 12);
}

/**
 * Builds the voice's graph on `ctx`: a source per note (oscillators or noise), an
 * envelope gain, the optional filter, the effects chain and a master gain.
 * @param {BaseAudioContext} ctx
 * @param {TonePlan} plan
 */
export function buildVoice(ctx, plan) {
  let nodes = 0;
  const count = (/** @type {AudioNode} */ node) => (nodes++, node);
  const master = count(ctx.createGain());
  master.gain.value = dbToGain(plan.volume);
  master.connect(ctx.destination);
  let entry = /** @type {AudioNode} */ (master);
  for (const effect of [...plan.effects].reverse()) {
    if (!effect.supported) continue;
    entry = effectNode(ctx, effect, entry, count);
  }
  let input = entry;
  if (plan.filter) {
    const filter = count(ctx.createBiquadFilter());
    filter.type = plan.filter.type;
    filter.frequency.value = plan.filter.frequency;
    filter.Q.value = plan.filter.Q;
    filter.connect(entry);
    input = filter;
  }
  const voice = { detune: plan.detune, volume: plan.volume };
  return {
    get nodeCount() {
      return nodes;
    },
    /** @param {number} db */
    setVolume(db) {
      voice.volume = db;
      master.gain.setTargetAtTime(dbToGain(db), ctx.currentTime, 0.02);
    },
    /** @param {number} cents */
    setDetune(cents) {
      voice.detune = cents;
    },
    /**
     * Plays one note: attack, decay to sustain, hold, release.
     * @param {number} midi @param {number} when @param {number} seconds
     */
    play(midi, when, seconds) {
      const envelope = count(ctx.createGain());
      envelope.connect(input);
      const { attack, decay, sustain, release } = plan.envelope;
      const peak = 0.5;
      envelope.gain.setValueAtTime(0, when);
      envelope.gain.linearRampToValueAtTime(peak, when + attack);
      envelope.gain.linearRampToValueAtTime(
        peak * Math.max(sustain, 0.0001),
        when + attack + decay,
      );
      const off = when + Math.max(seconds, attack + decay);
      envelope.gain.setValueAtTime(peak * Math.max(sustain, 0.0001), off);
      envelope.gain.linearRampToValueAtTime(0, off + release);
      const stop = off + release + 0.05;
      for (const source of sources(ctx, plan, midiToHz(midi), voice.detune, count)) {
        source.output.connect(envelope);
        for (const node of source.started) {
          node.start(when);
          node.stop(stop);
        }
      }
    },
  };
}

/** The sound sources of one note of the plan. */
function sources(ctx, plan, hz, detune, count) {
  if (plan.synth === "NoiseSynth" || plan.synth === "PluckSynth") {
    const buffer = ctx.createBuffer(1, Math.ceil(ctx.sampleRate * 2), ctx.sampleRate);
    const data = buffer.getChannelData(0);
    let seed = 12345;
    for (let i = 0; i < data.length; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      data[i] = seed / 0x3fffffff - 1;
    }
    const noise = count(ctx.createBufferSource());
    noise.buffer = buffer;
    if (plan.synth === "NoiseSynth") return [{ output: noise, started: [noise] }];
    const pluck = count(ctx.createBiquadFilter());
    pluck.type = "lowpass";
    pluck.frequency.value = hz * 4;
    noise.connect(pluck);
    return [{ output: pluck, started: [noise] }];
  }
  const spread = plan.modulation === "fat" ? [-12, 0, 12] : [0];
  return spread.map((cents) => {
    const carrier = count(oscillator(ctx, plan, hz));
    carrier.detune.value = detune + cents;
    if (plan.synth === "MembraneSynth") {
      carrier.frequency.setValueAtTime(hz * 4, ctx.currentTime);
      carrier.frequency.exponentialRampToValueAtTime(hz, ctx.currentTime + 0.05);
    }
    if (plan.modulation !== "am" && plan.modulation !== "fm") {
      return { output: carrier, started: [carrier] };
    }
    const modulator = count(ctx.createOscillator());
    modulator.frequency.value = hz * plan.harmonicity;
    const depth = count(ctx.createGain());
    modulator.connect(depth);
    if (plan.modulation === "fm") {
      depth.gain.value = hz * plan.harmonicity * plan.modulationIndex;
      depth.connect(carrier.frequency);
      return { output: carrier, started: [carrier, modulator] };
    }
    const amp = count(ctx.createGain());
    amp.gain.value = 0.5;
    depth.gain.value = 0.5;
    depth.connect(amp.gain);
    carrier.connect(amp);
    return { output: amp, started: [carrier, modulator] };
  });
}

/** An oscillator of the plan's wave, with `partials` harmonics when it names a count. */
function oscillator(ctx, plan, hz) {
  const node = ctx.createOscillator();
  node.frequency.value = hz;
  if (plan.partials > 0) {
    const real = new Float32Array(plan.partials + 1);
    const imag = new Float32Array(plan.partials + 1);
    for (let n = 1; n <= plan.partials; n++) imag[n] = harmonic(plan.wave, n);
    node.setPeriodicWave(ctx.createPeriodicWave(real, imag));
  } else {
    node.type = /** @type {OscillatorType} */ (plan.wave);
  }
  return node;
}

/** The sine amplitude of harmonic n of a wave shape. */
function harmonic(wave, n) {
  switch (wave) {
    case "square":
      return n % 2 === 1 ? 1 / n : 0;
    case "sawtooth":
      return (n % 2 === 1 ? 1 : -1) / n;
    case "triangle":
      return n % 2 === 1 ? (((n - 1) / 2) % 2 === 0 ? 1 : -1) / (n * n) : 0;
    default:
      return n === 1 ? 1 : 0;
  }
}

/**
 * One effect in front of `next`, with a dry/wet mix: its input node.
 * @param {BaseAudioContext} ctx
 */
function effectNode(ctx, effect, next, count) {
  const o = effect.options;
  const wet = Math.min(1, Math.max(0, optionNumber(o.wet, 0.5)));
  const input = count(ctx.createGain());
  const dry = count(ctx.createGain());
  const wetGain = count(ctx.createGain());
  dry.gain.value = 1 - wet;
  wetGain.gain.value = wet;
  input.connect(dry).connect(next);
  wetGain.connect(next);
  const lfo = (
    /** @type {number} */ hz,
    /** @type {number} */ depth,
    /** @type {AudioParam} */ param,
  ) => {
    const osc = count(ctx.createOscillator());
    osc.frequency.value = hz;
    const gain = count(ctx.createGain());
    gain.gain.value = depth;
    osc.connect(gain).connect(param);
    osc.start();
  };
  switch (effect.type) {
    case "Reverb":
    case "Freeverb":
    case "JCReverb": {
      const convolver = count(ctx.createConvolver());
      convolver.buffer = impulse(ctx, optionNumber(o.decay ?? o.roomSize, 1.5));
      input.connect(convolver).connect(wetGain);
      break;
    }
    case "Chorus":
    case "Vibrato": {
      const delay = count(ctx.createDelay(0.1));
      delay.delayTime.value = optionNumber(o.delayTime, 3.5) / 1000 + 0.005;
      lfo(optionNumber(o.frequency, 1.5), 0.002 * optionNumber(o.depth, 0.7), delay.delayTime);
      input.connect(delay).connect(wetGain);
      break;
    }
    case "FeedbackDelay":
    case "PingPongDelay": {
      const delay = count(ctx.createDelay(5));
      delay.delayTime.value = Math.min(5, optionNumber(o.delayTime, 0.25));
      const feedback = count(ctx.createGain());
      feedback.gain.value = Math.min(0.95, optionNumber(o.feedback, 0.3));
      input.connect(delay).connect(feedback).connect(delay);
      if (effect.type === "PingPongDelay" && ctx.createStereoPanner) {
        const pan = count(ctx.createStereoPanner());
        lfo(1 / Math.max(0.01, 2 * delay.delayTime.value), 1, pan.pan);
        delay.connect(pan).connect(wetGain);
      } else {
        delay.connect(wetGain);
      }
      break;
    }
    case "AutoPanner":
    case "Tremolo": {
      if (effect.type === "AutoPanner") {
        const pan = count(ctx.createStereoPanner());
        lfo(optionNumber(o.frequency, 1), optionNumber(o.depth, 1), pan.pan);
        input.connect(pan).connect(wetGain);
      } else {
        const amp = count(ctx.createGain());
        amp.gain.value = 0.5;
        lfo(optionNumber(o.frequency, 10), 0.5 * optionNumber(o.depth, 0.5), amp.gain);
        input.connect(amp).connect(wetGain);
      }
      break;
    }
    case "Distortion":
    case "Chebyshev":
    case "BitCrusher": {
      const shaper = count(ctx.createWaveShaper());
      shaper.curve = distortionCurve(optionNumber(o.distortion ?? o.order ?? o.bits, 0.4));
      input.connect(shaper).connect(wetGain);
      break;
    }
    case "Compressor": {
      const compressor = count(ctx.createDynamicsCompressor());
      compressor.threshold.value = optionNumber(o.threshold, -24);
      compressor.ratio.value = Math.min(20, Math.max(1, optionNumber(o.ratio, 4)));
      input.connect(compressor).connect(wetGain);
      break;
    }
    default: {
      // Filter, AutoFilter, Phaser: a filter (swept for the auto/phaser kinds).
      const filter = count(ctx.createBiquadFilter());
      filter.type = effect.type === "Phaser" ? "allpass" : /** @type {BiquadFilterType} */ (
        String(objectOr(o.filter).type ?? o.type ?? "lowpass")
      );
      const base = optionNumber(o.frequency ?? o.baseFrequency, 800);
      filter.frequency.value = base > 20 ? base : 800;
      if (effect.type !== "Filter") {
        lfo(base > 20 ? 0.5 : Math.max(0.05, base), 400, filter.frequency);
      }
      input.connect(filter).connect(wetGain);
    }
  }
  return input;
}

/** A stereo impulse of decaying noise, `seconds` long: the reverb's room. */
function impulse(ctx, seconds) {
  const length = Math.max(1, Math.floor(ctx.sampleRate * Math.min(10, Math.max(0.05, seconds))));
  const buffer = ctx.createBuffer(2, length, ctx.sampleRate);
  let seed = 7;
  for (let channel = 0; channel < 2; channel++) {
    const data = buffer.getChannelData(channel);
    for (let i = 0; i < length; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      data[i] = (seed / 0x3fffffff - 1) * Math.pow(1 - i / length, 3);
    }
  }
  return buffer;
}

/** A soft-clipping curve; `amount` 0…1. */
function distortionCurve(amount) {
  const k = Math.max(0, Math.min(1, amount)) * 100;
  const curve = new Float32Array(1024);
  for (let i = 0; i < curve.length; i++) {
    const x = (i * 2) / curve.length - 1;
    curve[i] = ((3 + k) * x * 20 * (Math.PI / 180)) / (Math.PI + k * Math.abs(x));
  }
  return curve;
}

/** @param {unknown} value @returns {Record<string, any>} */
function objectOr(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? /** @type {Record<string, any>} */ (value)
    : {};
}

/** @param {unknown} value @returns {any[]} */
function listOf(value) {
  return Array.isArray(value) ? value : [];
}
