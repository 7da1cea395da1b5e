import assert from "node:assert/strict";
import { loadConfig } from "./config.ts";
import {
  KEY_PATTERNS,
  MAY_HOLD_KEY,
  REDACTED,
  redactText,
  redactValue,
  secretsFromUrl,
} from "./redact.ts";

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

Deno.test("the configuration's secrets are the provider keys only", () => {
  const env: Record<string, string> = {
    OPENAI_API_KEY: "sk-1234",
    GEMINI_API_KEY: "",
    HOME: "/root",
  };
  assert.deepEqual(loadConfig((name) => env[name]).secrets, ["sk-1234"]);
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

Deno.test("redactText() masks a known secret cut short, from 8 characters on", () => {
  const secret = "my-own-secret-value-0123456789";
  // A message truncated inside the key, as error details are ("…" after 300 characters).
  const cut = `HTTP 401: bad key ${secret.slice(0, 21)}…`;
  assert.equal(redactText(cut, [secret]), `HTTP 401: bad key ${REDACTED}…`);
  assert.equal(redactText(`x ${secret} y`, [secret]), `x ${REDACTED} y`);
  // Fewer than 8 characters give too little away to be told from ordinary text.
  assert.equal(redactText("my-own-", [secret]), "my-own-");
  assert.equal(redactText("my-own-s", [secret]), REDACTED);
});

Deno.test("redactText() masks credentials in common URL query parameters", () => {
  for (
    const name of ["key", "api_key", "api-key", "apikey", "access_token", "token", "sig", "code"]
  ) {
    const masked = redactText(`https://h.test/v1?alt=sse&${name}=s3cretvalue&x=1`);
    assert.equal(masked, `https://h.test/v1?alt=sse&${name}=${REDACTED}&x=1`, name);
  }
  assert.equal(
    redactText("https://h.test/v1?api-version=2024-06-01"),
    "https://h.test/v1?api-version=2024-06-01",
  );
});

Deno.test("secretsFromUrl() gives a URL's user, password, user:pass and its base64, decoded too", () => {
  assert.deepEqual(secretsFromUrl("http://h/path"), []);
  assert.deepEqual(secretsFromUrl("not a url"), []);
  const secrets = secretsFromUrl("http://al%40ce:p%3Ass-word@h:1/api");
  for (
    const form of [
      "al%40ce",
      "p%3Ass-word",
      "al@ce",
      "p:ss-word",
      "al@ce:p:ss-word",
      btoa("al@ce:p:ss-word"),
      btoa("al%40ce:p%3Ass-word"),
    ]
  ) assert.ok(secrets.includes(form), form);
  // Too short to mask without masking ordinary words.
  assert.deepEqual(secretsFromUrl("http://ab:cd@h/").includes("ab"), false);
});

Deno.test("redactText() with the configuration's secrets masks SYN_BACKEND_URL's Basic credentials and their fragments", () => {
  const env: Record<string, string> = { SYN_BACKEND_URL: "https://user:pass@backend.example/api" };
  const secrets = loadConfig((name) => env[name]).secrets;
  const basic = btoa("user:pass");
  const text = `rejected Basic ${basic} for ${"user"}/${"pass"}, tail ${basic.slice(2)}`;
  const masked = redactText(text, secrets);
  for (const secret of [basic, "user", "pass", basic.slice(2)]) {
    assert.equal(masked.includes(secret), false, masked);
  }
  assert.match(masked, /^rejected Basic \*\*\*redacted\*\*\* for /);
});

Deno.test("the pre-check finds every string a key pattern matches (it only ever skips work)", () => {
  // Pieces of every pattern, in other cases, and characters whose case folding is special.
  const pieces = [
    "sk-",
    "SK-",
    "sK-",
    "ant-",
    "proj-",
    "AIza",
    "aiza",
    "AIZA",
    "Bearer ",
    "bearer\t",
    "BEARER  ",
    "?",
    "&",
    "key=",
    "api_key=",
    "API-KEY=",
    "access-token=",
    "sig=",
    "code=",
    "password=",
    "authorization",
    "Authorization: ",
    "proxy-authorization=",
    'AUTHORIZATION"',
    "'",
    '"',
    ":",
    "=",
    " ",
    "\n",
    "abcdefghijklmnop",
    "0123456789ABCDEF",
    "_-",
    "ı",
    "ſ",
    "\u212a",
    "é",
    "x",
  ];
  let seed = 7;
  const next = (limit: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % limit;
  };
  let matched = 0;
  for (let sample = 0; sample < 20_000; sample++) {
    let text = "";
    for (let count = 1 + next(6); count > 0; count--) text += pieces[next(pieces.length)];
    const hit = KEY_PATTERNS.some((pattern) =>
      new RegExp(pattern.source, pattern.flags).test(text)
    );
    if (!hit) continue;
    matched++;
    assert.ok(MAY_HOLD_KEY.test(text), `pre-check misses ${JSON.stringify(text)}`);
  }
  assert.ok(matched > 1000, `only ${matched} samples matched a pattern`);
  // And what it lets through is left as it was.
  assert.equal(
    redactText("frequency 440 Hz, a pulsing blue circle"),
    "frequency 440 Hz, a pulsing blue circle",
  );
});
