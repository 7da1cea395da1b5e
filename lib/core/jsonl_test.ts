import assert from "node:assert/strict";
import { appendJsonl, appendJsonlLines, readJsonl, writeFileAtomic } from "./jsonl.ts";

Deno.test("appendJsonl() appends one line per record and readJsonl() reads them back", async () => {
  const directory = await Deno.makeTempDir();
  try {
    const path = `${directory}/log.jsonl`;
    await appendJsonl(path, { a: 1, text: "line\nbreak" });
    await appendJsonlLines(path, [{ b: 2 }, [3]]);
    const text = await Deno.readTextFile(path);
    assert.equal(text.split("\n").length, 4);
    assert.deepEqual(await readJsonl(path), [{ a: 1, text: "line\nbreak" }, { b: 2 }, [3]]);
  } finally {
    await Deno.remove(directory, { recursive: true });
  }
});

Deno.test("appendJsonl() keeps lines whole under concurrent writers", async () => {
  const directory = await Deno.makeTempDir();
  try {
    const path = `${directory}/log.jsonl`;
    const big = "x".repeat(70_000);
    await Promise.all(
      Array.from({ length: 40 }, (_, index) => appendJsonl(path, { index, big })),
    );
    const records = (await readJsonl(path)) as { index: number; big: string }[];
    assert.equal(records.length, 40);
    assert.deepEqual(records.map((record) => record.index).sort((a, b) => a - b), [
      ...Array(40).keys(),
    ]);
    assert.ok(records.every((record) => record.big === big));
  } finally {
    await Deno.remove(directory, { recursive: true });
  }
});

Deno.test("readJsonl() names the line that does not parse", async () => {
  const directory = await Deno.makeTempDir();
  try {
    const path = `${directory}/bad.jsonl`;
    await Deno.writeTextFile(path, '{"a":1}\n{oops\n');
    await assert.rejects(readJsonl(path), /bad\.jsonl:2: not a JSON line/);
  } finally {
    await Deno.remove(directory, { recursive: true });
  }
});

Deno.test("writeFileAtomic() replaces the file and leaves no temporary behind", async () => {
  const directory = await Deno.makeTempDir();
  try {
    const path = `${directory}/asset.json`;
    await writeFileAtomic(path, "one");
    await writeFileAtomic(path, "two");
    assert.equal(await Deno.readTextFile(path), "two");
    assert.deepEqual([...Deno.readDirSync(directory)].map((entry) => entry.name), ["asset.json"]);
  } finally {
    await Deno.remove(directory, { recursive: true });
  }
});
