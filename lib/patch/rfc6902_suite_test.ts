/**
 * The public RFC 6902 test suite (npm `json-patch-test-suite@1.1.0`: `tests.json` and
 * `spec_tests.json`, read from the npm cache, never copied here): every enabled case
 * applies to its expected document, or is refused when it names an `error`; `diff`
 * round-trips every expected document. Disabled cases are counted and listed.
 */
import assert from "node:assert/strict";
import specCases from "json-patch-test-suite/spec_tests.json" with { type: "json" };
import suiteCases from "json-patch-test-suite/tests.json" with { type: "json" };
import { apply, diff, PatchError, type PatchOperation } from "./mod.ts";

interface SuiteCase {
  comment?: string;
  doc: unknown;
  patch: unknown;
  expected?: unknown;
  error?: string;
  disabled?: boolean;
}

const SUITES: readonly { file: string; cases: readonly SuiteCase[] }[] = [
  { file: "tests.json", cases: suiteCases as SuiteCase[] },
  { file: "spec_tests.json", cases: specCases as SuiteCase[] },
];

function label(file: string, index: number, suiteCase: SuiteCase): string {
  return `${file} #${index}${suiteCase.comment ? ` (${suiteCase.comment})` : ""}`;
}

/** What happened to one enabled case; `undefined` when it behaved as the suite says. */
function runCase(suiteCase: SuiteCase): string | undefined {
  const patch = suiteCase.patch as PatchOperation[];
  if (suiteCase.error !== undefined) {
    try {
      apply(suiteCase.doc, patch);
    } catch (error) {
      return error instanceof PatchError ? undefined : `threw a non-PatchError: ${error}`;
    }
    return `applied, but the suite expects an error: ${suiteCase.error}`;
  }
  let result: unknown;
  try {
    result = apply(suiteCase.doc, patch);
  } catch (error) {
    return `refused: ${error instanceof Error ? error.message : error}`;
  }
  const expected = "expected" in suiteCase ? suiteCase.expected : suiteCase.doc;
  try {
    assert.deepEqual(result, expected);
  } catch {
    return `gave ${JSON.stringify(result)}, expected ${JSON.stringify(expected)}`;
  }
  return roundTrip(suiteCase.doc, expected);
}

/** `diff(doc, expected)` applied to `doc` gives `expected` back. */
function roundTrip(doc: unknown, expected: unknown): string | undefined {
  try {
    assert.deepEqual(apply(doc, diff(doc, expected)), expected);
  } catch (error) {
    return `diff does not round-trip: ${error instanceof Error ? error.message : error}`;
  }
}

Deno.test("apply and diff pass every enabled case of the RFC 6902 test suite", () => {
  const failures: string[] = [];
  const disabled: string[] = [];
  let passed = 0;
  for (const { file, cases } of SUITES) {
    cases.forEach((suiteCase, index) => {
      if (suiteCase.disabled) return disabled.push(label(file, index, suiteCase));
      const problem = runCase(suiteCase);
      if (problem) failures.push(`${label(file, index, suiteCase)}: ${problem}`);
      else passed++;
    });
  }
  const total = SUITES.reduce((sum, suite) => sum + suite.cases.length, 0);
  console.log(
    `RFC 6902 suite: ${passed} passed, ${failures.length} failed, ` +
      `${disabled.length} disabled (not run):\n  ${disabled.join("\n  ")}`,
  );
  assert.deepEqual(failures, []);
  assert.equal(passed + disabled.length, total);
  assert.ok(passed > 0);
});

Deno.test("diff round-trips between every pair of documents the suite expects", () => {
  const documents = SUITES.flatMap(({ cases }) =>
    cases.filter((suiteCase) => !suiteCase.disabled && "expected" in suiteCase)
      .flatMap((suiteCase) => [suiteCase.doc, suiteCase.expected])
  );
  const failures: string[] = [];
  for (const from of documents) {
    for (const to of documents) {
      const problem = roundTrip(from, to);
      if (problem) failures.push(`${JSON.stringify(from)} -> ${JSON.stringify(to)}: ${problem}`);
    }
  }
  assert.deepEqual(failures, []);
});
