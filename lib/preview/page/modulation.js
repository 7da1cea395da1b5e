// Modulations (LFOs) of the Synesthetic modulation schema, evaluated at a time in seconds.
// Plain browser module, also imported by the Deno tests: no DOM, no globals.

const TAU = Math.PI * 2;

/** Fractional part in [0, 1), also for negative numbers. */
function fraction(x) {
  return x - Math.floor(x);
}

/**
 * One period of a waveform in [-1, 1] at `cycles` periods since t = 0: sine, triangle
 * (rising through 0 at 0), square (+1 for the first half period) and sawtooth (rising
 * through 0 at 0). An unknown waveform is flat (0).
 * @param {string} waveform
 * @param {number} cycles
 * @returns {number}
 */
export function waveValue(waveform, cycles) {
  switch (waveform) {
    case "sine":
      return Math.sin(TAU * cycles);
    case "triangle":
      return 1 - 4 * Math.abs(fraction(cycles + 0.25) - 0.5);
    case "square":
      return fraction(cycles) < 0.5 ? 1 : -1;
    case "sawtooth":
      return 2 * fraction(cycles + 0.5) - 1;
    default:
      return 0;
  }
}

/**
 * The response curve of `scaleProfile`, odd so that a wave stays centred: linear, then
 * exponential (x·|x|), logarithmic, sine and cosine shapes of a value in [-1, 1].
 * @param {string | undefined} profile
 * @param {number} x
 * @returns {number}
 */
export function scaleProfileValue(profile, x) {
  const sign = Math.sign(x);
  const size = Math.abs(x);
  switch (profile) {
    case "exponential":
      return sign * size * size;
    case "logarithmic":
      return sign * Math.log1p(9 * size) / Math.log(10);
    case "sine":
      return sign * Math.sin(size * Math.PI / 2);
    case "cosine":
      return sign * (1 - Math.cos(size * Math.PI / 2));
    default:
      return x;
  }
}

/**
 * The output of one modulation at time `seconds`: offset + amplitude · profile(wave), times
 * scale. The wave's phase is in radians.
 * @param {Record<string, unknown>} modulation
 * @param {number} seconds
 * @returns {number}
 */
export function modulationOutput(modulation, seconds) {
  const frequency = finite(modulation.frequency, 0);
  const phase = finite(modulation.phase, 0);
  const wave = waveValue(String(modulation.waveform), frequency * seconds + phase / TAU);
  const shaped = scaleProfileValue(/** @type {string} */ (modulation.scaleProfile), wave);
  const output = finite(modulation.offset, 0) + finite(modulation.amplitude, 0) * shaped;
  return output * finite(modulation.scale, 1);
}

/**
 * A base value with every modulation of its target applied in order: `additive` adds the
 * output, `multiplicative` multiplies by it; the result is kept within the modulation's
 * own min/max when it has them.
 * @param {number} base
 * @param {Record<string, unknown>[]} modulations
 * @param {number} seconds
 * @returns {number}
 */
export function modulate(base, modulations, seconds) {
  let value = base;
  for (const modulation of modulations) {
    const output = modulationOutput(modulation, seconds);
    value = modulation.type === "multiplicative" ? value * output : value + output;
    if (typeof modulation.min === "number") value = Math.max(modulation.min, value);
    if (typeof modulation.max === "number") value = Math.min(modulation.max, value);
  }
  return value;
}

/**
 * `value` when it is a finite number, else `fallback`.
 * @param {unknown} value
 * @param {number} fallback
 */
export function finite(value, fallback) {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}
