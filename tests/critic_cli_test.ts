import assert from "node:assert/strict";
import { readJsonl } from "../lib/core/mod.ts";
import { critiqueAsset, generateDeterministic, normalizeAsset } from "../lib/generate/mod.ts";
import { runSyn } from "./fakes/cli_io.ts";
import { assertLogRecordsValid, closedPort, tempDir } from "./generate_fakes.ts";

const good = () => normalizeAsset(generateDeterministic("a calm blue ocean at dusk", { seed: 3 }));

Deno.test("critiqueAsset() finds missing targets, a silent tone, haptic out of range and unused uniforms", () => {
  assert.deepEqual(critiqueAsset(good()).filter((issue) => issue.severity !== "info"), []);
  const asset = good();
  asset.control.control_parameters[2].parameter = "shader.u_missing";
  (asset.tone.synth.options as Record<string, unknown>).volume = "-inf";
  asset.haptic.input_parameters[0].default = 1.4;
  asset.modulations![0].target = "shader.u_gone";
  asset.modulations![1].target = "tone.nowhere";
  asset.shader.uniforms.push({ name: "u_unused", type: "float", stage: "fragment", default: 0 });
  const issues = critiqueAsset(asset).map((issue) => [issue.code, issue.path, issue.severity]);
  assert.deepEqual(issues, [
    ["control_target_missing", "/control/control_parameters/2/parameter", "error"],
    ["haptic_out_of_range", "/haptic/input_parameters/0/default", "error"],
    ["modulation_target_missing", "/modulations/0/target", "error"],
    ["modulation_target_missing", "/modulations/1/target", "warning"],
    ["uniform_unused", "/shader/uniforms/6", "info"],
    ["silent_tone", "/tone/synth/options/volume", "error"],
  ]);
  const quiet = good();
  quiet.tone.input_parameters = [{
    name: "Volume",
    parameter: "volume",
    path: "tone.volume",
    type: "float",
    default: -80,
  }];
  assert.ok(
    critiqueAsset(quiet).some((issue) =>
      issue.code === "silent_tone" && issue.path === "/tone/input_parameters/0/default"
    ),
  );
  const noPointer = good();
  noPointer.control.control_parameters = noPointer.control.control_parameters.slice(2);
  assert.deepEqual(
    critiqueAsset(noPointer).filter((issue) => issue.code === "pointer_control_missing").map((
      issue,
    ) => issue.message),
    ["no mouse.x control for shader.u_px", "no inverted mouse.y control for shader.u_py"],
  );
});

Deno.test("syn critique validates through the service, checks quality and logs to critic.jsonl", async () => {
  using work = tempDir();
  const env = { MCP_READY_FILE: `${work.path}/mcp.ready`, LABS_LOG_DIR: "labs" };
  await Deno.writeTextFile(`${work.path}/good.json`, JSON.stringify(good()));
  const bad = good() as unknown as Record<string, unknown>;
  (bad.haptic as { input_parameters: { default: number }[] }).input_parameters[0].default = 3;
  (bad.shader as Record<string, unknown>).vertex_shader = 42;
  await Deno.writeTextFile(`${work.path}/bad.json`, JSON.stringify(bad));

  const ok = await runSyn(["critique", "good.json"], { cwd: work.path, env });
  assert.equal(ok.code, 0, ok.stderr);
  const okRecord = JSON.parse(ok.stdout);
  assert.equal(okRecord.ok, true);
  assert.deepEqual(okRecord.mcp_result, { ok: true, errors: [] });
  assert.equal(okRecord.transport, "stdio");

  const failed = await runSyn(["critique", "bad.json"], { cwd: work.path, env });
  assert.equal(failed.code, 1);
  const record = JSON.parse(failed.stdout);
  assert.equal(record.mcp_result.ok, false);
  assert.ok(
    record.mcp_result.errors.some((error: { path: string }) =>
      error.path === "/shader/vertex_shader"
    ),
  );
  assert.ok(record.issues.some((issue: { code: string }) => issue.code === "haptic_out_of_range"));
  assert.match(failed.stderr, /not ok: schema invalid/);

  const records = await readJsonl(`${work.path}/labs/critic.jsonl`) as Record<string, unknown>[];
  assert.deepEqual(records.map((entry) => entry.ok), [true, false]);
  const unreachable = await runSyn(["critique", "good.json"], {
    cwd: work.path,
    env: { ...env, MCP_ENDPOINT: "tcp", MCP_HOST: "127.0.0.1", MCP_PORT: String(closedPort()) },
  });
  assert.equal(unreachable.code, 1);
  assert.match(unreachable.stderr, /not ok: schema not checked \(transport_error: cannot connect/);
  assert.equal(JSON.parse(unreachable.stdout).mcp_result.reason, "transport_error");
  assert.equal(await assertLogRecordsValid(`${work.path}/labs`), 3);

  const missing = await runSyn(["critique", "nope.json"], { cwd: work.path, env });
  assert.equal(missing.code, 2);
  await Deno.writeTextFile(`${work.path}/broken.json`, '{\n  "name": ,\n}');
  const broken = await runSyn(["critique", "broken.json"], { cwd: work.path, env });
  assert.equal(broken.code, 2);
  assert.match(broken.stderr, /broken\.json:2:\d+/);
});

Deno.test('volume "loud" is a wrong option type: syn patch apply refuses it, syn critique exits 1 on it', async () => {
  using work = tempDir();
  const env = { MCP_READY_FILE: `${work.path}/mcp.ready`, LABS_LOG_DIR: "labs" };
  const original = JSON.stringify(good());
  await Deno.writeTextFile(`${work.path}/asset.json`, original);
  const patch = [{ op: "replace", path: "/tone/synth/options/volume", value: "loud" }];
  await Deno.writeTextFile(`${work.path}/loud.patch.json`, JSON.stringify(patch));
  // The tone schema types synth options loosely: only the critic, which apply runs too,
  // knows Tone.js needs a number here.
  const applied = await runSyn(["patch", "apply", "asset.json", "loud.patch.json"], {
    cwd: work.path,
    env,
  });
  assert.equal(applied.code, 1, applied.stderr);
  assert.match(
    applied.stderr,
    /critique_rejected: \/tone\/synth\/options\/volume must be a number/,
  );
  assert.equal(await Deno.readTextFile(`${work.path}/asset.json`), original);

  // The same asset made by hand: schema valid, and still not ok.
  const loud = good();
  (loud.tone.synth.options as Record<string, unknown>).volume = "loud";
  await Deno.writeTextFile(`${work.path}/loud.json`, JSON.stringify(loud));
  const critique = await runSyn(["critique", "loud.json"], { cwd: work.path, env });
  assert.equal(critique.code, 1, critique.stderr);
  const record = JSON.parse(critique.stdout);
  assert.deepEqual(record.mcp_result, { ok: true, errors: [] });
  assert.deepEqual(
    record.issues.filter((issue: { code: string }) => issue.code === "tone_option_type"),
    [{
      code: "tone_option_type",
      severity: "error",
      path: "/tone/synth/options/volume",
      message: 'must be a number of decibels, got "loud"',
    }],
  );
  assert.match(critique.stderr, /not ok: schema valid/);
});
