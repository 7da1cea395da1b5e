import assert from "node:assert/strict";
import { loadConfig } from "../core/mod.ts";
import { temporaryDirectory } from "./connect_validator.ts";

Deno.test("temporaryDirectory() follows os.tmpdir()'s rule: TMPDIR, TMP, TEMP, else /tmp", () => {
  const env = (values: Record<string, string>) => loadConfig((name) => values[name]).system.tempDir;
  assert.equal(temporaryDirectory(env({})), "/tmp");
  assert.equal(temporaryDirectory(env({ TMPDIR: "/var/tmp/" })), "/var/tmp");
  assert.equal(temporaryDirectory(env({ TMPDIR: "", TMP: "/x", TEMP: "/y" })), "/x");
  assert.equal(temporaryDirectory(env({ TEMP: "/y" })), "/y");
  assert.equal(temporaryDirectory(env({ TMPDIR: "/" })), "/");
});
