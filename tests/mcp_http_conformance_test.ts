/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance@0.1.16`, Node ≥ 22)
 * against `syn mcp-serve --http`. `.ci/run` installs both into `.tools/`; without them the
 * test is ignored with the reason printed. The suite sends no `Authorization` header and
 * checks that a localhost Host is served, so this server runs with `--no-auth` on
 * loopback. Scenarios that need the suite's fixture tools, resources and prompts are
 * listed, each with its reason, in the expected-failures file; the suite's exit code
 * gates the test (an unlisted failure, or a listed scenario that passes, exits 1).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { childEnv, killAfter } from "./fakes/child_env.ts";
import { spawnHttpServer } from "./fakes/mcp_http_child.ts";

const TOOLS = fileURLToPath(new URL("../.tools/node_modules/", import.meta.url));
const NODE = `${TOOLS}node/bin/node`;
const SUITE = `${TOOLS}@modelcontextprotocol/conformance/dist/index.js`;
const EXPECTED_FAILURES = fileURLToPath(
  new URL("./fixtures/mcp_conformance_expected_failures.yml", import.meta.url),
);

/** Why the suite cannot run here, or `undefined` when it can. */
function missing(): string | undefined {
  try {
    const { code, stdout } = new Deno.Command(NODE, {
      args: ["--version"],
      clearEnv: true,
      env: childEnv(),
      stdout: "piped",
      stderr: "null",
    }).outputSync();
    const major = Number(/^v(\d+)\./.exec(new TextDecoder().decode(stdout))?.[1]);
    if (code !== 0 || !(major >= 22)) return `${NODE} is not Node 22 or later`;
  } catch {
    return `no Node 22 at ${NODE} (.ci/run installs node@22 there)`;
  }
  try {
    Deno.statSync(SUITE);
  } catch {
    return `no conformance suite at ${SUITE} (.ci/run installs it there)`;
  }
  return undefined;
}

const reason = missing();
if (reason) console.warn(`skipping the MCP conformance suite: ${reason}`);

Deno.test({
  name: "mcp-serve --http passes the official MCP conformance suite (fixture scenarios excepted)",
  ignore: reason !== undefined,
}, async () => {
  const server = await spawnHttpServer(["--http", "127.0.0.1:0", "--no-auth"]);
  try {
    const child = new Deno.Command(NODE, {
      args: [SUITE, "server", "--url", server.url, "--expected-failures", EXPECTED_FAILURES],
      clearEnv: true,
      env: childEnv(),
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const cancelKill = killAfter(child);
    const output = await child.output();
    cancelKill();
    const text = new TextDecoder().decode(output.stdout) +
      new TextDecoder().decode(output.stderr);
    const summary = text.slice(text.indexOf("=== SUMMARY ==="));
    console.log(summary.trim());
    assert.equal(
      output.code,
      0,
      `the suite failed:\n${summary}\nserver stderr:\n${server.stderr()}`,
    );
    assert.match(text, /Baseline check passed: all failures are expected/);
    for (const scenario of ["server-initialize", "ping", "tools-list", "resources-list"]) {
      assert.match(text, new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`), scenario);
    }
  } finally {
    const status = await server.stop();
    assert.equal(status.code, 0, server.stderr());
  }
});
