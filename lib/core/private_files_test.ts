import assert from "node:assert/strict";
import { join } from "node:path";
import {
  ensurePrivateDirSync,
  ensurePrivateFileSync,
  preparePrivateSqliteFile,
} from "./private_files.ts";

function modeOf(path: string): number {
  return Deno.statSync(path).mode! & 0o777;
}

Deno.test("ensurePrivateDirSync() creates 0700 folders and tightens an existing 0755 one", () => {
  const root = Deno.makeTempDirSync();
  try {
    const wide = join(root, "wide");
    Deno.mkdirSync(wide, { mode: 0o755 });
    Deno.chmodSync(wide, 0o755);
    ensurePrivateDirSync(wide);
    assert.equal(modeOf(wide), 0o700);
    const fresh = join(root, "a", "b");
    ensurePrivateDirSync(fresh);
    assert.equal(modeOf(fresh), 0o700);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("preparePrivateSqliteFile() leaves the database and its old side files 0600", () => {
  const root = Deno.makeTempDirSync();
  try {
    const db = join(root, "x.sqlite");
    Deno.writeTextFileSync(`${db}-wal`, "", { mode: 0o644 });
    Deno.chmodSync(`${db}-wal`, 0o644);
    preparePrivateSqliteFile(db);
    assert.equal(modeOf(db), 0o600);
    assert.equal(modeOf(`${db}-wal`), 0o600);
    Deno.chmodSync(db, 0o664);
    ensurePrivateFileSync(db);
    assert.equal(modeOf(db), 0o600);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
