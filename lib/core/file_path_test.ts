import assert from "node:assert/strict";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirnameOf, fileUrlToPath, pathToFileUrl, resolvePath } from "./file_path.ts";

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
