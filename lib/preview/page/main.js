// The preview page: loads the document syn serves at /asset.json, then renders the shader,
// wires sliders, controls, modulations and rules, and plays the tone after a click.
// Everything the asset says reaches the page as text (textContent), never as markup.

import {
  axisChange,
  BUTTON_NAMES,
  comboActive,
  describeMapping,
  normalizeKey,
} from "./controls.js";
import { finite } from "./modulation.js";
import { collectParameters, formatValue, isBound, ParameterState } from "./parameters.js";
import { createShaderStage } from "./shader_stage.js";
import { buildVoice, readTone } from "./tone_voice.js";

const query = new URLSearchParams(location.search);
const still = query.has("still");
const atSeconds = finite(Number(query.get("t") ?? 0), 0) / 1000;
const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** What tests and `syn preview --png` read: state, problems and a few probes. */
const hooks = {
  state: "loading",
  /** @type {string[]} */
  problems: [],
  frames: 0,
  /** @type {{state: string, nodes: number, notes: number} | null} */
  audio: null,
  haptic: { pulses: 0, vibrate: typeof navigator.vibrate === "function" },
  /** Draws a frame now (parameters at their targets) and summarizes its pixels. */
  /** @type {() => object} */
  sample: () => ({}),
  /** @type {(key: string, value: number) => boolean} */
  setParameter: () => false,
  /** @type {(key: string) => unknown} */
  parameter: () => undefined,
  /** Stops the clock at `seconds` (null: runs again), so frames differ only by input. */
  /** @type {(seconds: number | null) => void} */
  freeze: () => {},
  /** Draws a frame and returns it as a PNG data URL of the canvas's exact size. */
  /** @type {() => string} */
  png: () => "",
  /** @type {(seconds?: number) => Promise<number>} */
  renderOffline: () => Promise.resolve(0),
};
Object.defineProperty(globalThis, "synPreview", { value: hooks });

function setState(/** @type {string} */ state) {
  hooks.state = state;
  document.body.dataset.state = state;
}

/** @param {string} title @param {string[]} lines @param {{line: number, source: string}[]} [details] */
function showProblems(title, lines, details = []) {
  $("problems").hidden = false;
  $("problems-title").textContent = title;
  const list = $("problem-list");
  lines.forEach((line, index) => {
    const item = document.createElement("li");
    item.textContent = line;
    const source = details[index]?.source;
    if (source) {
      const pre = document.createElement("pre");
      pre.textContent = `${details[index].line} | ${source.trim()}`;
      item.append(pre);
    }
    list.append(item);
  });
  hooks.problems.push(...lines);
}

async function start() {
  if (still) document.body.classList.add("still");
  const doc = query.get("doc") ?? "0";
  const response = await fetch(`/asset.json?doc=${encodeURIComponent(doc)}`);
  if (!response.ok) {
    showProblems("Could not load the document", [`${response.status} ${await response.text()}`]);
    return setState("error");
  }
  const info = await response.json();
  const own = info.document?.name;
  $("title").textContent = typeof own === "string" && own.trim() ? own : info.name;
  $("source").textContent = `${info.name} · ${info.schema}`;
  $("description").textContent = String(info.document?.description ?? "");
  document.title = `syn preview — ${info.name}`;
  if (!info.ok) {
    const lines = info.errors.map((/** @type {any} */ e) => `${e.path || "/"}: ${e.msg}`);
    showProblems(`Not rendered: the document is not a valid ${info.schema}`, lines);
    $("canvas").hidden = true;
    return setState("invalid");
  }
  render(info.view);
}

/** @param {Record<string, any>} asset */
function render(asset) {
  const canvas = /** @type {HTMLCanvasElement} */ ($("canvas"));
  if (query.has("w") || query.has("h")) {
    canvas.width = Math.max(1, Math.min(4096, finite(Number(query.get("w")), 800)));
    canvas.height = Math.max(1, Math.min(4096, finite(Number(query.get("h")), 600)));
  }
  const table = collectParameters(asset);
  const values = new ParameterState(table);
  const pointer = { x: canvas.width / 2, y: canvas.height / 2 };
  const started = performance.now();
  /** @type {number | null} */
  let frozen = null;
  const seconds = () => still ? atSeconds : frozen ?? (performance.now() - started) / 1000;
  hooks.freeze = (at) => {
    frozen = at;
  };
  const uniform = (/** @type {string} */ name) => {
    if (name === "u_time") return seconds();
    if (name === "u_resolution") return [canvas.width, canvas.height];
    if (name === "u_mouse") return [pointer.x, canvas.height - pointer.y];
    return values.value(`shader.${name}`, seconds());
  };
  hooks.setParameter = (key, value) => {
    if (!table.has(key)) return false;
    values.set(key, value);
    return true;
  };
  hooks.parameter = (key) => values.value(key, seconds());
  const stage = asset.shader ? createShaderStage(canvas, asset.shader) : null;
  if (stage && stage.problems.length > 0) {
    const lines = stage.problems.map((p) =>
      p.line ? `${p.stage} shader, line ${p.line}: ${p.message}` : `${p.stage}: ${p.message}`
    );
    showProblems("The shader does not compile", lines, stage.problems);
  }
  const draw = stage && !stage.problems.length ? stage : null;
  if (!asset.shader) {
    canvas.hidden = true;
    document.body.classList.add("no-shader");
    // A still of the panel is cut at the PNG's width: the page lays itself out to it.
    if (still) document.body.style.setProperty("--still-width", `${canvas.width}px`);
  }
  hooks.sample = () => {
    if (!draw) return { drawn: false };
    values.tick(Infinity);
    draw.draw(uniform);
    return { drawn: true, width: canvas.width, height: canvas.height, ...summarize(draw.pixels()) };
  };
  hooks.png = () => {
    if (!draw) return "";
    values.tick(Infinity);
    draw.draw(uniform);
    return canvas.toDataURL("image/png");
  };
  const audio = wireTone(asset, values, seconds);
  const haptic = wireHaptic(asset, values, seconds);
  describeParameters(table, values, seconds);
  wireInput(canvas, table, values, pointer, asset, audio, haptic);
  hideEmptySections(asset);
  if (still) {
    values.tick(Infinity);
    if (draw) draw.draw(uniform);
    hooks.frames = 1;
    return setState(draw || !asset.shader ? "ready" : "shader-error");
  }
  let last = performance.now();
  const frame = (/** @type {number} */ now) => {
    values.tick((now - last) / 1000);
    last = now;
    if (draw) draw.draw(uniform);
    audio.update();
    haptic.update();
    hooks.frames++;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  setState(draw || !asset.shader ? "ready" : "shader-error");
}

/**
 * A section with nothing to list is not shown; in a still, neither is the Tone or Haptic
 * section of a document without one (the live page keeps them: they say what is missing).
 * @param {Record<string, any>} asset
 */
function hideEmptySections(asset) {
  const empty = (/** @type {string} */ id) => $(id).childElementCount === 0;
  $("parameters").hidden = empty("sliders");
  $("controls").hidden = empty("mappings");
  $("modulations-section").hidden = empty("modulations");
  $("rules-section").hidden = empty("rules");
  if (still) {
    $("sound").hidden = !asset.tone;
    $("haptic").hidden = !asset.haptic;
  }
}

/** How many pixels are lit, how many distinct colours (of a sample) and a checksum. */
function summarize(/** @type {Uint8Array} */ pixels) {
  let lit = 0;
  let checksum = 2166136261;
  const colours = new Set();
  for (let i = 0; i < pixels.length; i += 4) {
    if (pixels[i] > 8 || pixels[i + 1] > 8 || pixels[i + 2] > 8) lit++;
    if (i % 64 === 0) colours.add((pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2]);
    checksum = Math.imul(checksum ^ (pixels[i] + 3 * pixels[i + 1] + 7 * pixels[i + 2]), 16777619);
  }
  return { lit, colours: colours.size, checksum: checksum >>> 0 };
}

/** The Play button: an AudioContext made inside the click, the voice, a short phrase. */
function wireTone(/** @type {Record<string, any>} */ asset, values, seconds) {
  const none = { update() {}, trigger() {} };
  if (!asset.tone) return none;
  const plan = readTone(asset.tone);
  const oscillator = plan.modulation ? `${plan.modulation}${plan.wave}` : plan.wave;
  $("tone-summary").textContent =
    `${plan.synth} (${oscillator}${
      plan.partials ? `, ${plan.partials} partials` : ""
    }), envelope A ${plan.envelope.attack}s D ${plan.envelope.decay}s S ${plan.envelope.sustain} R ${plan.envelope.release}s, ${plan.volume} dB` +
    (plan.filter ? `, ${plan.filter.type} filter at ${plan.filter.frequency} Hz` : "");
  for (const effect of plan.effects) {
    const item = document.createElement("li");
    item.textContent = effect.supported
      ? effect.type
      : `${effect.type} (not approximated: bypassed)`;
    if (!effect.supported) item.className = "note";
    $("effects").append(item);
  }
  /** @type {ReturnType<typeof buildVoice> | null} */
  let voice = null;
  /** @type {AudioContext | null} */
  let ctx = null;
  const button = /** @type {HTMLButtonElement} */ ($("play"));
  button.disabled = false;
  const play = (/** @type {number} */ note, /** @type {number} */ length) => {
    if (!ctx || !voice) {
      ctx = new AudioContext();
      voice = buildVoice(ctx, plan);
    }
    voice.play(note, ctx.currentTime + 0.01, length);
    hooks.audio = {
      state: ctx.state,
      nodes: voice.nodeCount,
      notes: (hooks.audio?.notes ?? 0) + 1,
    };
  };
  button.addEventListener("click", () => {
    play(60, 0.25);
    if (ctx && voice) {
      voice.play(64, ctx.currentTime + 0.3, 0.25);
      voice.play(67, ctx.currentTime + 0.6, 0.5);
    }
  });
  hooks.renderOffline = async (length = 1) => {
    const offline = new OfflineAudioContext(2, Math.ceil(44100 * length), 44100);
    buildVoice(offline, plan).play(60, 0, length / 2);
    const buffer = await offline.startRendering();
    const data = buffer.getChannelData(0);
    let sum = 0;
    for (const sample of data) sum += sample * sample;
    return Math.sqrt(sum / data.length);
  };
  return {
    update() {
      if (!voice || !ctx) return;
      const volume = values.value("tone.volume", seconds());
      if (typeof volume === "number") voice.setVolume(volume);
      const detune = values.value("tone.detune", seconds());
      if (typeof detune === "number") voice.setDetune(detune);
      if (hooks.audio) hooks.audio.state = ctx.state;
    },
    trigger() {
      if (ctx) play(60, 0.2);
    },
  };
}

/** The haptic profile: navigator.vibrate where there is one, and always the meter. */
function wireHaptic(/** @type {Record<string, any>} */ asset, values, seconds) {
  const meter = /** @type {HTMLMeterElement} */ ($("haptic-meter"));
  let level = 0;
  if (!asset.haptic) return { update() {}, pulse() {} };
  const device = asset.haptic.device ?? {};
  const options = Object.entries(device.options ?? {}).map(([name, option]) =>
    `${name} ${option?.value ?? option} ${option?.unit ?? ""}`.trim()
  );
  $("haptic-summary").textContent = `${device.type ?? "device"}${
    options.length ? ` (${options.join(", ")})` : ""
  } — ${
    hooks.haptic.vibrate ? "vibrates on this device" : "no vibration here: shown on the meter"
  }`;
  const pulse = () => {
    const intensity = Math.max(
      0,
      Math.min(1, Number(values.value("haptic.intensity", seconds()) ?? 0.5)),
    );
    const ms = Math.round(40 + 160 * intensity);
    if (hooks.haptic.vibrate) navigator.vibrate(ms);
    hooks.haptic.pulses++;
    level = intensity;
  };
  const button = /** @type {HTMLButtonElement} */ ($("pulse"));
  button.disabled = false;
  button.addEventListener("click", pulse);
  return {
    update() {
      level *= 0.9;
      const base = values.value("haptic.intensity", seconds());
      meter.value = Math.max(level, typeof base === "number" ? base * 0.25 : 0);
    },
    pulse,
  };
}

/** Sliders for every input parameter and control, and the lists of mappings and modulations. */
function describeParameters(table, values, seconds) {
  /** @type {{output: HTMLOutputElement, key: string}[]} */
  const outputs = [];
  for (const parameter of table.values()) {
    if (!parameter.slider || typeof parameter.initial !== "number") continue;
    const span = Math.max(1, Math.abs(parameter.initial));
    const min = parameter.min ?? parameter.initial - span;
    const max = parameter.max ?? parameter.initial + span;
    const row = document.createElement("label");
    row.className = "slider";
    const name = document.createElement("span");
    name.textContent = `${parameter.label}`;
    name.title = parameter.key;
    const input = document.createElement("input");
    input.type = "range";
    input.min = String(min);
    input.max = String(max);
    input.step = String(parameter.step ?? (parameter.type === "int" ? 1 : (max - min) / 200));
    input.value = String(parameter.initial);
    input.dataset.key = parameter.key;
    const output = document.createElement("output");
    output.textContent = formatValue(parameter.initial);
    input.addEventListener("input", () => values.set(parameter.key, Number(input.value)));
    row.append(name, input, output);
    $("sliders").append(row);
    outputs.push({ output, key: parameter.key });
  }
  if (!still) {
    setInterval(() => {
      for (const { output, key } of outputs) {
        output.textContent = formatValue(values.value(key, seconds()));
      }
    }, 150);
  }
  for (const parameter of table.values()) {
    for (const mapping of parameter.mappings) {
      const item = document.createElement("li");
      const bound = isBound(parameter.key)
        ? ""
        : " (not bound: nothing in the preview has this path)";
      item.textContent = `${parameter.label} [${parameter.key}]: ${
        describeMapping(mapping)
      }${bound}`;
      if (bound) item.className = "unbound";
      $("mappings").append(item);
    }
    for (const modulation of parameter.modulations) {
      const item = document.createElement("li");
      item.textContent = `${
        modulation.id ?? "?"
      } → ${parameter.key}: ${modulation.type} ${modulation.waveform} ${modulation.frequency} Hz, amplitude ${modulation.amplitude}`;
      $("modulations").append(item);
    }
  }
}

const RULE_EVENTS = {
  pointerdown: ["mouse_down", "pointer_down", "click"],
  pointerup: ["mouse_up", "pointer_up"],
  keydown: ["key_down", "key_press"],
  keyup: ["key_up"],
};

/** Mouse, wheel and keys drive the control mappings; the same events fire matching rules. */
function wireInput(canvas, table, values, pointer, asset, audio, haptic) {
  const held = { keys: new Set(), buttons: new Set(), wheel: false };
  const rules = Array.isArray(asset.rule_bundle?.rules) ? asset.rule_bundle.rules : [];
  for (const rule of rules) {
    const item = document.createElement("li");
    const runs = ruleRuns(rule);
    item.textContent = `${rule.id}: on ${rule.trigger?.type ?? "?"}${
      runs ? "" : " (shown, not run by the preview)"
    }`;
    if (!runs) item.className = "note";
    $("rules").append(item);
  }
  const fire = (
    /** @type {string} */ event,
    /** @type {{button?: string, key?: string}} */ detail,
  ) => {
    for (const rule of rules) {
      if (!ruleRuns(rule) || !RULE_EVENTS[event].includes(rule.trigger.type)) continue;
      const params = rule.trigger.params ?? {};
      if (params.button && detail.button !== String(params.button).toLowerCase()) continue;
      if (params.key && detail.key !== normalizeKey(params.key)) continue;
      for (const effect of rule.effects ?? []) applyEffect(effect, rule, values, audio, haptic);
    }
  };
  const move = (/** @type {string} */ axis, /** @type {number} */ delta) => {
    for (const parameter of table.values()) {
      for (const mapping of parameter.mappings) {
        if (mapping?.action?.axis !== axis || !comboActive(mapping.combo, held)) continue;
        values.nudge(parameter.key, axisChange(mapping.action, delta, parameter.step));
      }
    }
  };
  canvas.addEventListener("contextmenu", (event) => event.preventDefault());
  canvas.addEventListener("pointerdown", (event) => {
    canvas.setPointerCapture(event.pointerId);
    canvas.focus();
    const button = BUTTON_NAMES[event.button] ?? "left";
    held.buttons.add(button);
    fire("pointerdown", { button });
  });
  canvas.addEventListener("pointerup", (event) => {
    const button = BUTTON_NAMES[event.button] ?? "left";
    held.buttons.delete(button);
    fire("pointerup", { button });
  });
  canvas.addEventListener("pointermove", (event) => {
    const box = canvas.getBoundingClientRect();
    const scale = canvas.width / Math.max(1, box.width);
    pointer.x = (event.clientX - box.left) * scale;
    pointer.y = (event.clientY - box.top) * scale;
    if (event.movementX) move("mouse.x", event.movementX);
    if (event.movementY) move("mouse.y", event.movementY);
  });
  canvas.addEventListener("wheel", (event) => {
    event.preventDefault();
    held.wheel = true;
    move("mouse.wheel", -Math.sign(event.deltaY) * Math.min(10, Math.abs(event.deltaY) / 10 || 1));
    held.wheel = false;
  }, { passive: false });
  addEventListener("keydown", (event) => {
    const key = normalizeKey(event.key);
    if (!held.keys.has(key)) fire("keydown", { key });
    held.keys.add(key);
  });
  addEventListener("keyup", (event) => {
    const key = normalizeKey(event.key);
    held.keys.delete(key);
    fire("keyup", { key });
  });
  addEventListener("blur", () => {
    held.keys.clear();
    held.buttons.clear();
  });
}

/** Whether the preview runs a rule: a pointer or key trigger with effects it knows. */
function ruleRuns(/** @type {any} */ rule) {
  const trigger = rule?.trigger?.type;
  return Object.values(RULE_EVENTS).some((names) => names.includes(trigger)) &&
    Array.isArray(rule.effects) && rule.effects.some((effect) => knownEffect(effect));
}

/** An effect's number: `value` itself, or `{value: n}` as some generators write it. */
function effectNumber(/** @type {any} */ effect) {
  const value = effect?.value;
  if (typeof value === "number") return value;
  return typeof value?.value === "number" ? value.value : undefined;
}

function knownEffect(/** @type {any} */ effect) {
  if (effect?.op === "triggerAttackRelease") return true;
  return ["set", "add", "increment"].includes(effect?.op) && effectNumber(effect) !== undefined;
}

function applyEffect(effect, rule, values, audio, haptic) {
  if (!knownEffect(effect)) return;
  const target = String(effect.target ?? rule.target ?? "");
  if (effect.op === "triggerAttackRelease") return audio.trigger();
  const amount = /** @type {number} */ (effectNumber(effect));
  if (effect.op === "set") values.set(target, amount);
  else values.nudge(target, amount);
  values.jump(target);
  if (target.startsWith("haptic.")) haptic.pulse();
}

start().catch((error) => {
  showProblems("The preview failed", [String(error?.message ?? error)]);
  setState("error");
});
