import assert from "node:assert/strict";
import { retryDelayFromResponse } from "./retry_delay_from_response.ts";

const NOW = Date.parse("2025-01-01T00:00:00Z");

Deno.test("retryDelayFromResponse() prefers retry-after-ms, then retry-after seconds", () => {
  const both = new Headers({ "retry-after-ms": "1500", "retry-after": "9" });
  assert.equal(retryDelayFromResponse(both, undefined, { now: NOW }), 1500);
  assert.equal(
    retryDelayFromResponse(new Headers({ "retry-after": "2" }), undefined, { now: NOW }),
    2000,
  );
  assert.equal(
    retryDelayFromResponse(new Headers({ "retry-after": "0.25" }), undefined, { now: NOW }),
    250,
  );
});

Deno.test("retryDelayFromResponse() reads an HTTP date relative to the clock", () => {
  const headers = new Headers({ "retry-after": "Wed, 01 Jan 2025 00:00:03 GMT" });
  assert.equal(retryDelayFromResponse(headers, undefined, { now: NOW }), 3000);
  assert.equal(retryDelayFromResponse(headers, undefined, { now: NOW + 10_000 }), 0);
});

Deno.test("retryDelayFromResponse() reads Gemini's RetryInfo retryDelay", () => {
  const body = {
    error: {
      details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1.5s" }],
    },
  };
  assert.equal(retryDelayFromResponse(new Headers(), body, { now: NOW }), 1500);
});

Deno.test("retryDelayFromResponse() ignores missing and unparsable hints", () => {
  assert.equal(retryDelayFromResponse(new Headers(), undefined, { now: NOW }), undefined);
  assert.equal(
    retryDelayFromResponse(new Headers({ "retry-after": "soon", "retry-after-ms": "-5" }), {}, {
      now: NOW,
    }),
    undefined,
  );
});
