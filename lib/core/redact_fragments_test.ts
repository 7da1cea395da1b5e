import assert from "node:assert/strict";
import { REDACTED, redactText, redactValue } from "./redact.ts";

const KEY = "sk-live-9f8e7d6c5b4a3210ZYXWVUTS";

Deno.test("redactText() masks any fragment of 8+ characters of a configured key: prefix, suffix, middle", () => {
  for (const fragment of [KEY.slice(0, 10), KEY.slice(-9), KEY.slice(8, 20), KEY]) {
    const text = `invalid key …${fragment}… please check`;
    const masked = redactText(text, [KEY]);
    assert.ok(!masked.includes(fragment), `${fragment} survived: ${masked}`);
    assert.match(masked, /^invalid key …\*\*\*redacted\*\*\*… please check$/);
  }
  assert.equal(
    redactText("a 7-char piece: " + KEY.slice(-7), [KEY]),
    "a 7-char piece: " + KEY.slice(-7),
  );
});

Deno.test("redactText() masks an Authorization header a backend echoes, in any quoting", () => {
  for (
    const text of [
      "Authorization: Basic dXNlcjpwYXNzd29yZA==",
      '{"authorization":"Token abcdef123456"}',
      "headers={'Authorization': 'Bearer xyz12345678'}",
      "proxy-authorization=Digest q1w2e3r4t5",
    ]
  ) {
    const masked = redactText(text, []);
    assert.ok(masked.includes(REDACTED), masked);
    for (const secret of ["dXNlcjpwYXNzd29yZA==", "abcdef123456", "xyz12345678", "q1w2e3r4t5"]) {
      assert.ok(!masked.includes(secret), masked);
    }
  }
});

Deno.test("redactValue() masks a key echoed in a property name, and leaves asset fields named token alone", () => {
  const echoed = { [`key ${KEY.slice(4)} is invalid`]: true, error: { detail: KEY.slice(-10) } };
  const masked = JSON.stringify(redactValue(echoed, [KEY]));
  assert.ok(!masked.includes(KEY.slice(4, 14)), masked);
  assert.ok(!masked.includes(KEY.slice(-10)), masked);
  const asset = {
    control: { token: "u_time", secret: "glow", password: "dusk" },
    api_key: "abc",
    "x-api-key": "def",
  };
  assert.deepEqual(redactValue(asset, [KEY]), {
    control: { token: "u_time", secret: "glow", password: "dusk" },
    api_key: REDACTED,
    "x-api-key": REDACTED,
  });
});
