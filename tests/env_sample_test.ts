import assert from "node:assert/strict";

/**
 * `.env.sample` lists exactly the environment variables the code reads: every name the
 * sources read by literal (`env("NAME")`, `io.env("NAME")`, `Deno.env.get("NAME")`) is
 * listed, and every listed name is read somewhere.
 */
const root = new URL("../", import.meta.url);

function* sources(directory: URL): Generator<URL> {
  for (const entry of Deno.readDirSync(directory)) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), directory);
    if (entry.isDirectory) yield* sources(url);
    else if (entry.name.endsWith(".ts") && !/_test\.ts$|_bench\.ts$/.test(entry.name)) yield url;
  }
}

const READ = /\benv(?:\.get)?\(\s*["']([A-Z][A-Z0-9_]*)["']/g;
/** Names read through a constant list, e.g. `SECRET_ENV_NAMES`, appear as quoted literals. */
const LITERAL = /["']([A-Z][A-Z0-9]*_[A-Z0-9_]+)["']/g;

/** The system's own variables: read (where `bwrap` is, say), never configured through syn. */
const SYSTEM = new Set(["PATH", "HOME", "TMPDIR", "TMP", "TEMP"]);

function sampleNames(): string[] {
  const text = Deno.readTextFileSync(new URL(".env.sample", root));
  return [...text.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]);
}

Deno.test(".env.sample lists every variable the code reads", () => {
  const listed = new Set(sampleNames());
  const missing: string[] = [];
  for (const directory of ["lib/", "main.ts"]) {
    const url = new URL(directory, root);
    const files = directory.endsWith("/") ? [...sources(url)] : [url];
    for (const file of files) {
      for (const match of Deno.readTextFileSync(file).matchAll(READ)) {
        if (!listed.has(match[1]) && !SYSTEM.has(match[1])) {
          missing.push(`${match[1]} (${file.pathname.slice(root.pathname.length)})`);
        }
      }
    }
  }
  assert.deepEqual(missing, []);
});

Deno.test(".env.sample lists no variable that nothing reads", () => {
  let corpus = Deno.readTextFileSync(new URL("main.ts", root));
  for (const file of sources(new URL("lib/", root))) corpus += Deno.readTextFileSync(file);
  const literals = new Set([...corpus.matchAll(LITERAL)].map((match) => match[1]));
  const unread = sampleNames().filter((name) => !literals.has(name));
  assert.deepEqual(unread, []);
});

Deno.test(".env.sample has an empty value and a comment for every variable", () => {
  const lines = Deno.readTextFileSync(new URL(".env.sample", root)).split("\n");
  lines.forEach((line, index) => {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (!match) return;
    assert.equal(match[2], "", `${match[1]} must be empty in the sample`);
    assert.match(lines[index - 1] ?? "", /^#/, `${match[1]} needs a comment line above it`);
  });
});
