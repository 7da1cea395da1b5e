import assert from "node:assert/strict";
import { claimReadyFile, httpReadyLine, readyFileContent, releaseReadyFile } from "./ready_file.ts";

Deno.test("readyFileContent() writes the pid, the time and each endpoint's line", () => {
  const readyAt = new Date("2026-01-02T03:04:05.000Z");
  assert.equal(readyFileContent({ pid: 42, readyAt }), "42 2026-01-02T03:04:05.000Z\n");
  const lines = [
    httpReadyLine("http://127.0.0.1:9/mcp", "t0k"),
    httpReadyLine("http://x/", undefined),
  ];
  assert.equal(
    readyFileContent({ pid: 42, readyAt, lines }),
    "42 2026-01-02T03:04:05.000Z\nhttp url=http://127.0.0.1:9/mcp token=t0k\nhttp url=http://x/\n",
  );
});

Deno.test("claimReadyFile() replaces a stale file with endpoint lines; releaseReadyFile() removes only its own", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/mcp.ready`;
  const warn = (line: string) => assert.fail(line);
  // A server that is gone (no such pid) left a file with an HTTP line: it is replaced.
  await Deno.writeTextFile(
    path,
    `999999999 2020-01-01T00:00:00.000Z\n${httpReadyLine("http://a/", "x")}`,
  );
  const content = readyFileContent({ pid: Deno.pid, readyAt: new Date() });
  assert.equal(claimReadyFile(path, content, { isDefault: false, warn, mode: 0o600 }), path);
  assert.equal(Deno.statSync(path).mode! & 0o777, 0o600);
  // Replaced by another server since: left alone.
  const other = readyFileContent({ pid: Deno.pid, readyAt: new Date(0) });
  await Deno.writeTextFile(path, other);
  await releaseReadyFile(path, content);
  assert.equal(await Deno.readTextFile(path), other);
  await releaseReadyFile(path, other);
  assert.throws(() => Deno.statSync(path), Deno.errors.NotFound);
  await Deno.remove(dir, { recursive: true });
});
