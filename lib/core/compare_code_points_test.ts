import assert from "node:assert/strict";
import { seededRandom } from "../../tests/fakes/random.ts";
import { compareCodePoints } from "./compare_code_points.ts";

function codePointsReference(a: string, b: string): number {
  const x = Array.from(a, (character) => character.codePointAt(0) as number);
  const y = Array.from(b, (character) => character.codePointAt(0) as number);
  for (let index = 0; index < Math.min(x.length, y.length); index++) {
    if (x[index] !== y[index]) return x[index] - y[index];
  }
  return x.length - y.length;
}

Deno.test("compareCodePoints() agrees with a code point array comparison, lone surrogates too", () => {
  const units = [
    0x41,
    0x7e,
    0xd7ff,
    0xd800,
    0xd83d,
    0xdbff,
    0xdc00,
    0xde00,
    0xdfff,
    0xe000,
    0xffff,
  ];
  const random = seededRandom(12345);
  const randomString = () =>
    String.fromCharCode(
      ...Array.from({ length: Math.floor(random() * 5) }, () =>
        units[Math.floor(random() * units.length)]),
    );
  for (let round = 0; round < 20_000; round++) {
    const a = randomString();
    const b = random() < 0.3 ? a + randomString() : randomString();
    assert.equal(
      Math.sign(compareCodePoints(a, b)),
      Math.sign(codePointsReference(a, b)),
      `${JSON.stringify(a)} vs ${JSON.stringify(b)}`,
    );
  }
});
