import assert from "node:assert/strict";
import { readJsonl } from "../lib/core/mod.ts";
import { contentId, generateDeterministic, normalizeAsset } from "../lib/generate/mod.ts";
import { run } from "../lib/cli/patch.ts";
import { fakeIo, runSyn } from "./fakes/cli_io.ts";
import { assertLogRecordsValid, closedPort, tempDir } from "./generate_fakes.ts";

Deno.test("syn patch preview, apply and rate: validated before anything is written, all logged", async () => {
  using work = tempDir();
  const env = { MCP_READY_FILE: `${work.path}/mcp.ready`, LABS_LOG_DIR: "labs" };
  const asset = normalizeAsset(generateDeterministic("a pulsing blue circle", { seed: 1 }));
  const original = JSON.stringify(asset, null, 2);
  await Deno.writeTextFile(`${work.path}/asset.json`, original);
  const good = [
    { op: "replace", path: "/name", value: "Brighter Circle" },
    { op: "add", path: "/meta_info/tags/-", value: "brighter" },
  ];
  const bad = [{ op: "replace", path: "/shader/fragment_shader", value: 7 }];
  await Deno.writeTextFile(`${work.path}/good.patch.json`, JSON.stringify(good));
  await Deno.writeTextFile(`${work.path}/bad.patch.json`, JSON.stringify(bad));
  await Deno.writeTextFile(
    `${work.path}/broken.patch.json`,
    JSON.stringify([{ op: "remove", path: "/nope" }]),
  );

  const preview = await runSyn(["patch", "preview", "asset.json", "good.patch.json"], {
    cwd: work.path,
    env,
  });
  assert.equal(preview.code, 0, preview.stderr);
  const previewed = JSON.parse(preview.stdout);
  assert.equal(previewed.ok, true);
  assert.equal(previewed.result.name, "Brighter Circle");
  assert.deepEqual(previewed.diff, [
    { op: "replace", path: "/meta_info/tags", value: [...asset.meta_info.tags, "brighter"] },
    { op: "replace", path: "/name", value: "Brighter Circle" },
  ]);
  assert.equal(previewed.patch_id, contentId(good));
  assert.equal(
    await Deno.readTextFile(`${work.path}/asset.json`),
    original,
    "preview writes nothing",
  );

  const invalid = await runSyn(["patch", "apply", "asset.json", "bad.patch.json"], {
    cwd: work.path,
    env,
  });
  assert.equal(invalid.code, 1);
  assert.match(invalid.stderr, /validation_failed: .*fragment_shader.*\(nothing written\)/);
  assert.equal(
    await Deno.readTextFile(`${work.path}/asset.json`),
    original,
    "invalid result not written",
  );

  const failing = await runSyn(["patch", "preview", "asset.json", "broken.patch.json"], {
    cwd: work.path,
    env,
  });
  assert.equal(failing.code, 1);
  assert.equal(JSON.parse(failing.stdout).failure.reason, "patch_error");

  const applied = await runSyn([
    "patch",
    "apply",
    "asset.json",
    "good.patch.json",
    "--out",
    "v2.json",
  ], {
    cwd: work.path,
    env,
  });
  assert.equal(applied.code, 0, applied.stderr);
  assert.equal(JSON.parse(await Deno.readTextFile(`${work.path}/v2.json`)).name, "Brighter Circle");
  assert.equal(await Deno.readTextFile(`${work.path}/asset.json`), original);
  const inPlace = await runSyn(["patch", "apply", "asset.json", "good.patch.json"], {
    cwd: work.path,
    env,
  });
  assert.equal(inPlace.code, 0, inPlace.stderr);
  assert.equal(
    JSON.parse(await Deno.readTextFile(`${work.path}/asset.json`)).name,
    "Brighter Circle",
  );

  const unreachable = await runSyn(["patch", "apply", "asset.json", "good.patch.json"], {
    cwd: work.path,
    env: { ...env, MCP_ENDPOINT: "tcp", MCP_HOST: "127.0.0.1", MCP_PORT: String(closedPort()) },
  });
  assert.equal(unreachable.code, 1);
  assert.match(unreachable.stderr, /transport_error: .*\(nothing written\)/);
  assert.equal(JSON.parse(unreachable.stdout).output_path, null);

  const rateAsset = await runSyn(["patch", "rate", "v2.json", "4", "--note", "warmer"], {
    cwd: work.path,
    env,
  });
  assert.equal(rateAsset.code, 0, rateAsset.stderr);
  const ratePatch = await runSyn(["patch", "rate", "good.patch.json", "5"], {
    cwd: work.path,
    env,
  });
  assert.equal(JSON.parse(ratePatch.stdout).target_id, contentId(good));
  const outOfRange = await runSyn(["patch", "rate", "v2.json", "6"], { cwd: work.path, env });
  assert.equal(outOfRange.code, 2);

  const records = await readJsonl(`${work.path}/labs/patches.jsonl`) as Record<string, unknown>[];
  assert.deepEqual(records.map((record) => [record.action, record.ok ?? record.rating]), [
    ["preview", true],
    ["apply", false],
    ["preview", false],
    ["apply", true],
    ["apply", true],
    ["apply", false],
    ["rate", 4],
    ["rate", 5],
  ]);
  assert.equal((records[5].failure as { reason: string }).reason, "transport_error");
  assert.equal(records[6].trace_id, null);
  assert.equal(records[6].kind, "asset");
  assert.equal(records[7].kind, "patch");
  assert.equal(await assertLogRecordsValid(`${work.path}/labs`), records.length);
});

Deno.test("syn patch refuses a file that is not UTF-8 rather than rewrite it with replacement characters", async () => {
  using work = tempDir();
  const encode = (text: string) => new TextEncoder().encode(text);
  // "café" in Latin-1: the lone 0xE9 byte is not UTF-8.
  const original = new Uint8Array([...encode('{"name": "caf'), 0xe9, ...encode('"}')]);
  await Deno.writeFile(`${work.path}/asset.json`, original);
  await Deno.writeTextFile(
    `${work.path}/rename.patch.json`,
    JSON.stringify([{ op: "add", path: "/description", value: "x" }]),
  );
  const io = fakeIo({ cwd: work.path, env: { LABS_LOG_DIR: "labs" } });
  await assert.rejects(
    run(["apply", "asset.json", "rename.patch.json"], io),
    /not valid UTF-8 text: .*asset\.json/,
  );
  assert.deepEqual(await Deno.readFile(`${work.path}/asset.json`), original);
});
