import assert from "node:assert/strict";
import { CONFIG_VARIABLES } from "../lib/core/mod.ts";
import { configTableMarkdown } from "../scripts/config_table.ts";

/**
 * `.env.sample` and `docs/configuration.md` follow the one table of variables
 * (`CONFIG_VARIABLES`): every configurable entry is listed, nothing else, secrets are
 * marked as such.
 */
const root = new URL("../", import.meta.url);
const configurable = CONFIG_VARIABLES.filter((entry) => !entry.system);

function sampleLines(): string[] {
  return Deno.readTextFileSync(new URL(".env.sample", root)).split("\n");
}

function sampleNames(): string[] {
  return sampleLines().flatMap((line) => /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1] ?? []);
}

/** The comment block right above `NAME=` in the sample. */
function commentOf(name: string): string {
  const lines = sampleLines();
  let index = lines.findIndex((line) => line.startsWith(`${name}=`)) - 1;
  const comment: string[] = [];
  while (index >= 0 && lines[index].startsWith("#")) comment.unshift(lines[index--]);
  return comment.join("\n");
}

Deno.test(".env.sample lists every variable of the table and nothing else, once each", () => {
  const names = sampleNames();
  assert.deepEqual(names, [...new Set(names)], "a name is listed twice");
  assert.deepEqual([...names].sort(), configurable.map((entry) => entry.name).sort());
});

Deno.test(".env.sample says which variables are secrets", () => {
  for (const entry of configurable) {
    const comment = commentOf(entry.name);
    if (entry.secret === "value") assert.match(comment, /secret/i, entry.name);
    if (entry.secret === "credentials") assert.match(comment, /credentials/i, entry.name);
  }
});

Deno.test(".env.sample has an empty value and a comment for every variable", () => {
  const lines = sampleLines();
  lines.forEach((line, index) => {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (!match) return;
    assert.equal(match[2], "", `${match[1]} must be empty in the sample`);
    assert.match(lines[index - 1] ?? "", /^#/, `${match[1]} needs a comment line above it`);
  });
});

/** The cells of a Markdown table's rows, trimmed (column padding does not matter). */
function tableRows(markdown: string): string[][] {
  return markdown.split("\n").filter((line) => line.startsWith("|") && !/^\|\s*-/.test(line))
    .map((line) => line.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim()));
}

Deno.test("docs/configuration.md holds the table of every variable", () => {
  const page = Deno.readTextFileSync(new URL("docs/configuration.md", root));
  assert.deepEqual(tableRows(page), tableRows(configTableMarkdown()));
});
