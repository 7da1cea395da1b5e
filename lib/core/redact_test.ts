import assert from "node:assert/strict";
import { REDACTED, redactText, redactValue, secretsFromEnv } from "./redact.ts";

Deno.test("redactText() masks given secrets and key-shaped strings", () => {
  const secret = "my-own-secret-value-123";
  const text = `key=${secret} auth: Bearer abcdefghijkl sk-proj-ABCDEFGHIJKLMNOPQRST ` +
    `AIzaSyA1234567890abcdefghijklmnopqrstu https://x.test/v1?key=zzz&alt=sse`;
  const masked = redactText(text, [secret]);
  assert.ok(!masked.includes(secret));
  assert.ok(!masked.includes("abcdefghijkl"));
  assert.ok(!masked.includes("sk-proj-ABCDEFGHIJKLMNOPQRST"));
  assert.ok(!masked.includes("AIzaSyA"));
  assert.ok(!masked.includes("key=zzz"));
  assert.ok(masked.includes("Bearer " + REDACTED));
  assert.ok(masked.includes("&alt=sse"));
});

Deno.test("redactValue() masks secret-named fields and nested strings without mutating", () => {
  const input = {
    headers: { Authorization: "Bearer x", "x-api-key": "k1" },
    note: ["has k-secret-9"],
  };
  const output = redactValue(input, ["k-secret-9"]);
  assert.deepEqual(output, {
    headers: { Authorization: REDACTED, "x-api-key": REDACTED },
    note: [`has ${REDACTED}`],
  });
  assert.equal(input.headers.Authorization, "Bearer x");
});

Deno.test("secretsFromEnv() reads the provider keys only", () => {
  const env: Record<string, string> = {
    OPENAI_API_KEY: "sk-1234",
    GEMINI_API_KEY: "",
    HOME: "/root",
  };
  assert.deepEqual(secretsFromEnv((name) => env[name]), ["sk-1234"]);
});

Deno.test("redactValue() copes with deep nesting, sparse arrays and __proto__ members", () => {
  const depth = 100_000;
  const deep = JSON.parse("[".repeat(depth) + '{"api_key":"k"}' + "]".repeat(depth));
  const masked = JSON.stringify(redactValue(deep));
  assert.ok(masked.endsWith(`{"api_key":"${REDACTED}"}` + "]".repeat(depth)));
  assert.deepEqual(redactValue([1, , "sk-proj-ABCDEFGHIJKLMNOPQRST"]), [1, undefined, REDACTED]);
  const proto = redactValue(JSON.parse('{"__proto__":{"token":"t"}}'));
  assert.deepEqual(Object.keys(proto), ["__proto__"]);
  assert.equal(Object.getPrototypeOf(proto), Object.prototype);
  assert.equal(redactValue(7), 7);
});
