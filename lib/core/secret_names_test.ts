import assert from "node:assert/strict";
import { isSecretName, maskSecretFields, SECRET_NAME_EXAMPLES } from "./secret_names.ts";
import { REDACTED } from "./redact.ts";

Deno.test("isSecretName() matches every documented secret name and its common forms", () => {
  const secret = [
    ...SECRET_NAME_EXAMPLES,
    "accessToken",
    "X-API-Key",
    "clientSecret",
    "session_token",
    "set-cookie",
    "password_hash",
    "Authorization",
    "private_key",
    "bearer_token",
    "db_credentials",
  ];
  for (const name of secret) assert.equal(isSecretName(name), true, name);
});

Deno.test("isSecretName() leaves names that only contain a secret word alone", () => {
  for (const name of ["token_type", "keyword", "monkey", "tokens_used", "key_id", "author", ""]) {
    assert.equal(isSecretName(name), false, name);
  }
});

Deno.test("maskSecretFields() masks values under secret names at any depth, in a copy", () => {
  const input = {
    user: "ann",
    token: "t0k3n-value",
    nested: [{ deep: { client_secret: { any: "shape" }, count: 2 } }],
    __proto__: 1,
  } as Record<string, unknown>;
  const masked = maskSecretFields(input) as Record<string, unknown>;
  assert.deepEqual(masked, {
    user: "ann",
    token: REDACTED,
    nested: [{ deep: { client_secret: REDACTED, count: 2 } }],
  });
  assert.equal(input.token, "t0k3n-value");
});

Deno.test("maskSecretFields() survives deep nesting", () => {
  let value: unknown = { password: "p" };
  for (let i = 0; i < 100_000; i++) value = { next: value };
  let masked = maskSecretFields(value) as Record<string, unknown>;
  while (masked.next) masked = masked.next as Record<string, unknown>;
  assert.equal(masked.password, REDACTED);
});
