// The asset's shader in WebGL2. Assets carry Three.js-style GLSL (ShaderMaterial): the
// vertex shader uses an undeclared `position` attribute, neither stage declares a
// precision, and the fragment stage writes gl_FragColor. As Three.js does on WebGL2, a
// source without `#version` is compiled as GLSL ES 3.00 behind a prelude of defines
// (attribute → in, gl_FragColor → an output, texture2D → texture), so loops bounded by
// uniforms and integer operators work; compile errors are mapped back to the lines of the
// asset's own source. `assembleSource` and `mapInfoLog` are pure (Deno-tested).

/**
 * A stage's source with the prelude added (after the asset's own `#version`/`#extension`
 * lines, if it has any), and for every line of the result the line of the asset's source
 * it came from (0: prelude).
 * @param {"vertex" | "fragment"} stage
 * @param {string} source
 * @returns {{text: string, origin: number[]}}
 */
export function assembleSource(stage, source) {
  const lines = String(source).split(/\r\n|\r|\n/);
  let head = 0;
  while (head < lines.length && /^\s*#\s*(version|extension)\b/.test(lines[head])) head++;
  const version = lines.slice(0, head).find((line) => /#\s*version\b/.test(line));
  const mode = version === undefined ? "three" : /300\s+es/.test(version) ? "es3" : "es1";
  const prelude = preludeFor(stage, source, mode);
  const text = [...lines.slice(0, head), ...prelude, ...lines.slice(head)];
  const origin = [
    ...lines.slice(0, head).map((_, index) => index + 1),
    ...prelude.map(() => 0),
    ...lines.slice(head).map((_, index) => head + index + 1),
  ];
  return { text: text.join("\n"), origin };
}

/**
 * @param {"vertex" | "fragment"} stage
 * @param {string} source
 * @param {"three" | "es3" | "es1"} mode  no #version (Three.js style), or the asset's own
 */
function preludeFor(stage, source, mode) {
  const prelude = mode === "three" ? ["#version 300 es"] : [];
  if (mode === "three") {
    prelude.push("#define texture2D texture", "#define textureCube texture");
    if (stage === "vertex") prelude.push("#define attribute in", "#define varying out");
    else {
      prelude.push(
        "#define varying in",
        "layout(location = 0) out highp vec4 pc_fragColor;",
        "#define gl_FragColor pc_fragColor",
      );
    }
  }
  prelude.push("precision highp float;", "precision highp int;");
  if (stage !== "vertex") return prelude;
  const input = mode === "es1" ? "attribute" : "in";
  const declares = (/** @type {string} */ name) =>
    new RegExp(`\\b(attribute|in|uniform)\\s+\\w+\\s+${name}\\b`).test(source);
  const uses = (/** @type {string} */ name) => new RegExp(`\\b${name}\\b`).test(source);
  if (uses("position") && !declares("position")) prelude.push(`${input} vec3 position;`);
  if (uses("uv") && !declares("uv")) prelude.push(`${input} vec2 uv;`);
  for (const matrix of ["projectionMatrix", "modelViewMatrix", "modelMatrix", "viewMatrix"]) {
    if (uses(matrix) && !declares(matrix)) prelude.push(`uniform mat4 ${matrix};`);
  }
  return prelude;
}

/**
 * @typedef {object} ShaderProblem
 * @property {string} stage    vertex, fragment or link
 * @property {number} line     line in the asset's source (0: unknown)
 * @property {string} message
 * @property {string} source   the text of that line, when known
 */

/**
 * A compiler's info log (`ERROR: 0:12: 'x' : undeclared identifier`) as problems on the
 * asset's own lines.
 * @param {string} stage
 * @param {string} log
 * @param {number[]} origin
 * @param {string} source
 * @returns {ShaderProblem[]}
 */
export function mapInfoLog(stage, log, origin, source) {
  const lines = String(source).split(/\r\n|\r|\n/);
  /** @type {ShaderProblem[]} */
  const problems = [];
  for (const raw of String(log).split("\n")) {
    const text = raw.replace(/\0/g, "").trim();
    if (text === "") continue;
    const match = /^(ERROR|WARNING):\s*\d+:(\d+):\s*(.*)$/.exec(text);
    if (!match) {
      problems.push({ stage, line: 0, message: text, source: "" });
      continue;
    }
    if (match[1] === "WARNING") continue;
    const line = origin[Number(match[2]) - 1] ?? 0;
    const shown = line ? excerpt(lines[line - 1] ?? "", match[3]) : "";
    problems.push({ stage, line, message: match[3], source: shown });
  }
  return problems;
}

/**
 * A source line as shown beside its error: whole when short, else about 160 characters
 * around the first token the message quotes (one-line shaders are common).
 * @param {string} line
 * @param {string} message
 */
export function excerpt(line, message) {
  const trimmed = line.trim();
  if (trimmed.length <= 160) return trimmed;
  const token = /'([^']+)'/.exec(message)?.[1];
  const word = token && /^\w+$/.test(token) ? new RegExp(`\\b${token}\\b`).exec(trimmed) : null;
  const at = word ? word.index : token ? Math.max(0, trimmed.indexOf(token)) : 0;
  const start = Math.max(0, at - 60);
  const end = Math.min(trimmed.length, start + 160);
  return `${start > 0 ? "…" : ""}${trimmed.slice(start, end)}${end < trimmed.length ? "…" : ""}`;
}

const UNIFORM_SETTERS = {
  float: (gl, at, v) => gl.uniform1f(at, Number(v)),
  int: (gl, at, v) => gl.uniform1i(at, Math.round(Number(v))),
  bool: (gl, at, v) => gl.uniform1i(at, v ? 1 : 0),
  vec2: (gl, at, v) => gl.uniform2fv(at, v),
  vec3: (gl, at, v) => gl.uniform3fv(at, v),
  vec4: (gl, at, v) => gl.uniform4fv(at, v),
  ivec2: (gl, at, v) => gl.uniform2iv(at, v),
  ivec3: (gl, at, v) => gl.uniform3iv(at, v),
  ivec4: (gl, at, v) => gl.uniform4iv(at, v),
};
const SIZES = { vec2: 2, vec3: 3, vec4: 4, ivec2: 2, ivec3: 3, ivec4: 4 };

/**
 * Whether a value fits a uniform type (numbers for scalars, arrays of the right length for
 * vectors), so a wrong default is skipped rather than thrown by WebGL.
 * @param {string} type
 * @param {unknown} value
 */
export function fitsUniform(type, value) {
  const size = SIZES[/** @type {keyof typeof SIZES} */ (type)];
  if (size) {
    return Array.isArray(value) && value.length === size &&
      value.every((x) => typeof x === "number" && Number.isFinite(x));
  }
  if (type === "bool") return typeof value === "boolean" || typeof value === "number";
  return typeof value === "number" && Number.isFinite(value);
}

/**
 * Compiles and links the asset's shader on a WebGL2 canvas. Resolves to a stage that draws
 * a full-screen triangle, or to the problems that stopped it.
 * @param {HTMLCanvasElement} canvas
 * @param {Record<string, any>} shader
 */
export function createShaderStage(canvas, shader) {
  const gl = canvas.getContext("webgl2", { antialias: false });
  if (!gl) {
    return {
      problems: [{ stage: "webgl", line: 0, message: "WebGL2 is not available", source: "" }],
    };
  }
  const vertex = compile(gl, gl.VERTEX_SHADER, "vertex", shader.vertex_shader ?? "");
  const fragment = compile(gl, gl.FRAGMENT_SHADER, "fragment", shader.fragment_shader ?? "");
  const problems = [...vertex.problems, ...fragment.problems];
  if (problems.length > 0) return { problems };
  const program = gl.createProgram();
  gl.attachShader(program, vertex.shader);
  gl.attachShader(program, fragment.shader);
  gl.linkProgram(program);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS)) {
    const log = gl.getProgramInfoLog(program) ?? "link failed";
    return { problems: [{ stage: "link", line: 0, message: log.trim(), source: "" }] };
  }
  gl.useProgram(program);
  const buffer = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 0, 3, -1, 0, -1, 3, 0]), gl.STATIC_DRAW);
  const position = gl.getAttribLocation(program, "position");
  if (position >= 0) {
    gl.enableVertexAttribArray(position);
    gl.vertexAttribPointer(position, 3, gl.FLOAT, false, 0, 0);
  }
  const identity = new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
  for (const matrix of ["projectionMatrix", "modelViewMatrix", "modelMatrix", "viewMatrix"]) {
    const at = gl.getUniformLocation(program, matrix);
    if (at) gl.uniformMatrix4fv(at, false, identity);
  }
  const types = new Map(listOf(shader.uniforms).map((u) => [String(u?.name), String(u?.type)]));
  const locations = new Map();
  for (const name of types.keys()) {
    const at = gl.getUniformLocation(program, name);
    if (at) locations.set(name, at);
  }
  return {
    problems: [],
    /**
     * Draws one frame with uniform values from `valueOf(name)`.
     * @param {(name: string) => unknown} valueOf
     */
    draw(valueOf) {
      gl.viewport(0, 0, canvas.width, canvas.height);
      for (const [name, at] of locations) {
        const type = types.get(name) ?? "float";
        const value = valueOf(name);
        const setter = UNIFORM_SETTERS[/** @type {keyof typeof UNIFORM_SETTERS} */ (type)];
        if (setter && fitsUniform(type, value)) setter(gl, at, value);
      }
      gl.drawArrays(gl.TRIANGLES, 0, 3);
    },
    /** RGBA bytes of the whole canvas, read right after a draw. */
    pixels() {
      const out = new Uint8Array(canvas.width * canvas.height * 4);
      gl.readPixels(0, 0, canvas.width, canvas.height, gl.RGBA, gl.UNSIGNED_BYTE, out);
      return out;
    },
  };
}

/** @param {WebGL2RenderingContext} gl @param {number} type @param {"vertex" | "fragment"} stage @param {string} source */
function compile(gl, type, stage, source) {
  const assembled = assembleSource(stage, source);
  const shader = gl.createShader(type);
  gl.shaderSource(shader, assembled.text);
  gl.compileShader(shader);
  if (gl.getShaderParameter(shader, gl.COMPILE_STATUS)) return { shader, problems: [] };
  const log = gl.getShaderInfoLog(shader) ?? "compile failed";
  return { shader, problems: mapInfoLog(stage, log, assembled.origin, source) };
}

/** @param {unknown} value @returns {any[]} */
function listOf(value) {
  return Array.isArray(value) ? value : [];
}
