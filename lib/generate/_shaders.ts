import type { Rgb, ShapeKind } from "./_prompt_features.ts";

/** The vertex shader every generated asset uses (a full-screen quad). */
export const VERTEX_SHADER = "void main() { gl_Position = vec4(position, 1.0); }";

/** Shader names by shape, as they appear in `shader.name`. */
export const SHADER_NAMES: Readonly<Record<ShapeKind, string>> = {
  circle: "CircleSDF",
  ring: "RingSDF",
  box: "BoxSDF",
  waves: "WaveField",
  spiral: "SpiralSDF",
  star: "StarSDF",
};

/** The signed distance (or field) each shape draws, as a GLSL expression body. */
const DISTANCE: Readonly<Record<ShapeKind, string>> = {
  circle: "float shapeDistance(vec2 p, float r) { return length(p) - r; }",
  ring: "float shapeDistance(vec2 p, float r) { return abs(length(p) - r) - r * 0.18; }",
  box:
    "float shapeDistance(vec2 p, float r) { vec2 d = abs(p) - vec2(r); return length(max(d, 0.0)) + min(max(d.x, d.y), 0.0); }",
  waves:
    "float shapeDistance(vec2 p, float r) { return p.y - r * 0.35 * sin(p.x * 6.0 + u_time * u_speed) - (r - 0.5) * 0.4; }",
  spiral:
    "float shapeDistance(vec2 p, float r) { float a = atan(p.y, p.x); float l = length(p); return abs(sin(a * 3.0 + l * 12.0 / max(r, 0.1) - u_time * u_speed)) * 0.2 + l - r * 1.4; }",
  star:
    "float shapeDistance(vec2 p, float r) { float a = atan(p.y, p.x); float k = 0.5 + 0.5 * cos(a * 5.0); return length(p) - r * (0.55 + 0.45 * k); }",
};

const vec3 = (color: Rgb) => `vec3(${color.map((channel) => channel.toFixed(3)).join(", ")})`;

/**
 * A complete fragment shader: the shape at (`u_px`, `u_py`) with radius `u_r`, its
 * colours baked in as constants, animated by `u_time × u_speed`.
 */
export function fragmentShader(
  shape: ShapeKind,
  palette: { primary: Rgb; secondary: Rgb; background: Rgb },
  softness: number,
): string {
  return [
    "uniform vec2 u_resolution;",
    "uniform float u_time;",
    "uniform float u_px;",
    "uniform float u_py;",
    "uniform float u_r;",
    "uniform float u_speed;",
    `const vec3 PRIMARY = ${vec3(palette.primary)};`,
    `const vec3 SECONDARY = ${vec3(palette.secondary)};`,
    `const vec3 BACKGROUND = ${vec3(palette.background)};`,
    DISTANCE[shape],
    "void main() {",
    "  vec2 st = gl_FragCoord.xy / u_resolution.xy * 2.0 - 1.0;",
    "  st.x *= u_resolution.x / u_resolution.y;",
    "  vec2 p = st - vec2(u_px, u_py);",
    "  float d = shapeDistance(p, u_r);",
    `  float fill = 1.0 - smoothstep(-${softness.toFixed(3)}, ${softness.toFixed(3)}, d);`,
    "  vec3 tint = mix(PRIMARY, SECONDARY, sin(u_time * u_speed + d * 8.0) * 0.5 + 0.5);",
    "  gl_FragColor = vec4(mix(BACKGROUND, tint, fill), 1.0);",
    "}",
  ].join("\n");
}
