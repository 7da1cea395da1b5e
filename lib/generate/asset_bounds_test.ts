import assert from "node:assert/strict";
import {
  controlDefaultsOutOfRange,
  hapticIntensityOutOfRange,
  inputDefaultsOutOfRange,
  missingSections,
} from "./asset_bounds.ts";
import { critiqueAsset } from "./critique_asset.ts";
import { preflightAsset } from "./preflight_asset.ts";

const asset = {
  name: "x",
  shader: { input_parameters: [{ default: 5, min: 0, max: 1 }, { default: -Infinity }] },
  tone: { input_parameters: [{ default: -3, min: 0 }] },
  haptic: {
    input_parameters: [{ parameter: "haptic.intensity", default: 1.5, min: -0.1, max: 1 }],
    device: { options: { maxIntensity: { value: 2 } } },
  },
  control: { control_parameters: [{ parameter: "shader.u_x", default: 9, max: 2 }] },
};

Deno.test("bound findings: own min/max, non-finite numbers, the [0, 1] haptic rule, missing sections", () => {
  assert.deepEqual(inputDefaultsOutOfRange(asset).map((f) => [f.path, f.limit, f.bound]), [
    ["/shader/input_parameters/0/default", "max", 1],
    ["/shader/input_parameters/1/default", "finite", undefined],
    ["/tone/input_parameters/0/default", "min", 0],
    ["/haptic/input_parameters/0/default", "max", 1],
  ]);
  assert.deepEqual(controlDefaultsOutOfRange(asset).map((f) => [f.path, f.limit]), [
    ["/control/control_parameters/0/default", "max"],
  ]);
  assert.deepEqual(
    hapticIntensityOutOfRange(asset, ["default", "min"], { device: true }).map((f) => f.key),
    ["default", "min", "maxIntensity"],
  );
  assert.deepEqual(
    hapticIntensityOutOfRange(
      { haptic: { input_parameters: [{ parameter: "haptic.intensity" }] } },
      [
        "default",
      ],
      { requireDefault: true },
    ).map((f) => f.given),
    [undefined],
  );
  assert.deepEqual(missingSections({ shader: {}, tone: null }), [
    "tone",
    "haptic",
    "control",
    "meta_info",
  ]);
});

Deno.test("pre-flight and the critic report the same broken bounds, each in its own words", () => {
  const preflight = preflightAsset(asset).map((issue) => issue.path);
  const critic = critiqueAsset(asset).map((issue) => issue.path);
  for (
    const path of ["/control/control_parameters/0/default", "/haptic/input_parameters/0/default"]
  ) {
    assert.ok(preflight.includes(path), `pre-flight: ${path}`);
    assert.ok(critic.includes(path), `critic: ${path}`);
  }
});
