import assert from "node:assert/strict";
import {
  basename,
  dirname,
  extname,
  isAbsolute,
  join,
  normalize,
  relative,
  resolve,
} from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  basenameOf,
  dirnameOf,
  extnameOf,
  fileUrlToPath,
  isAbsolutePath,
  joinPath,
  normalizePath,
  pathToFileUrl,
  relativePath,
  resolvePath,
} from "./file_path.ts";

const PATHS = [
  "",
  ".",
  "..",
  "/",
  "//",
  "a",
  "a/",
  "a//b",
  "a/./b/../c",
  "../../x",
  "/a/b/",
  "/a//b//",
  "/a/../../b",
  "/..",
  "./a",
  "a/b/..",
  "dir with space/é/#hash?q%25",
  "back\\slash",
  "tab\tline\nend\r",
  "a.b",
  "a.b.c",
  "a.",
  "a..",
  ".a.b",
  "x/y.tar.gz/",
];

Deno.test("resolvePath() answers as node:path resolve", () => {
  for (const base of ["/home/user/repo", "/", "/a/b/", "relative/base"]) {
    for (const path of PATHS) {
      assert.equal(resolvePath(base, path), resolve(base, path), `${base} + ${path}`);
    }
  }
});

Deno.test("dirnameOf() answers as node:path dirname", () => {
  for (const path of [...PATHS, "/a", "/a/", "a/b/c", "///a///b///", "a///", "//a", "a/b//c"]) {
    assert.equal(dirnameOf(path), dirname(path), JSON.stringify(path));
  }
});

Deno.test("pathToFileUrl() and fileUrlToPath() answer as node:url", () => {
  for (const path of PATHS) {
    const absolute = `/home/user/${path}`;
    assert.equal(pathToFileUrl(absolute).href, pathToFileURL(absolute).href, absolute);
    assert.equal(fileUrlToPath(pathToFileUrl(absolute)), fileURLToPath(pathToFileURL(absolute)));
  }
  assert.equal(pathToFileUrl("relative/x").href, pathToFileURL("relative/x").href);
  const url = new URL("../schemas/", import.meta.url);
  assert.equal(fileUrlToPath(url), fileURLToPath(url));
});

Deno.test("fileUrlToPath() refuses what node:url refuses", () => {
  for (const text of ["http://example.com/a", "file:///a%2Fb", "file://host/a"]) {
    assert.throws(() => fileURLToPath(new URL(text)));
    assert.throws(() => fileUrlToPath(new URL(text)));
  }
});

/** Paths made of the parts that matter to these functions, every combination up to a length. */
function* pathsOf(length: number): Generator<string> {
  const parts = ["/", "a", "b", ".", "..", "...", ".a"];
  if (length === 0) {
    yield "";
    return;
  }
  for (const shorter of pathsOf(length - 1)) {
    for (const part of parts) yield shorter + (shorter && part !== "/" ? "/" : "") + part;
    yield shorter + "/";
  }
}

const GENERATED = [...new Set([...PATHS, ...pathsOf(4)])];

Deno.test("normalizePath(), isAbsolutePath(), basenameOf() and extnameOf() answer as node:path", () => {
  assert.ok(GENERATED.length > 2000, `${GENERATED.length} paths`);
  for (const path of GENERATED) {
    assert.equal(normalizePath(path), normalize(path), `normalize ${JSON.stringify(path)}`);
    assert.equal(isAbsolutePath(path), isAbsolute(path), `isAbsolute ${JSON.stringify(path)}`);
    assert.equal(basenameOf(path), basename(path), `basename ${JSON.stringify(path)}`);
    assert.equal(extnameOf(path), extname(path), `extname ${JSON.stringify(path)}`);
  }
});

Deno.test("joinPath() and relativePath() answer as node:path", () => {
  const some = GENERATED.filter((_, index) => index % 7 === 0);
  for (const first of some) {
    for (const second of [...PATHS, "/a/b", "a/../..", "/", "", "b/c/"]) {
      assert.equal(joinPath(first, second), join(first, second), `join ${first} ${second}`);
      assert.equal(
        relativePath(first, second),
        relative(first, second),
        `relative ${first} ${second}`,
      );
    }
  }
  assert.equal(joinPath(), join());
  assert.equal(joinPath("a", "", "b", "/c/"), join("a", "", "b", "/c/"));
});
