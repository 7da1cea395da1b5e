import assert from "node:assert/strict";
import { endpointPathOf, joinEndpoint, publicEndpoint } from "./mod.ts";

Deno.test("joinEndpoint() puts the path before the base's query, the path's query first", () => {
  assert.equal(joinEndpoint("https://h/v1", "/chat/completions"), "https://h/v1/chat/completions");
  assert.equal(joinEndpoint("https://h/api/", "assets/"), "https://h/api/assets/");
  assert.equal(
    joinEndpoint("http://h:1", "/synesthetic-assets/"),
    "http://h:1/synesthetic-assets/",
  );
  assert.equal(
    joinEndpoint("https://h/openai?api-version=2024", "/chat?alt=sse"),
    "https://h/openai/chat?alt=sse&api-version=2024",
  );
  assert.equal(joinEndpoint("http://h:1/?t=1", "/assets"), "http://h:1/assets?t=1");
  assert.equal(joinEndpoint("http://h:1/api#frag", "/x"), "http://h:1/api/x");
  assert.equal(endpointPathOf("https://h/v1?key=k#f"), "https://h/v1");
});

Deno.test("publicEndpoint() drops user info, query and fragment, URL or not", () => {
  assert.equal(publicEndpoint("https://u:p@h/v1?key=s3cret#x"), "https://h/v1");
  assert.equal(publicEndpoint("http://h:1"), "http://h:1/");
  assert.equal(publicEndpoint("not a url?token=s3cret"), "not a url");
  assert.equal(publicEndpoint("weird://user:pw@host/x y?k=1"), "weird://host/x y");
  assert.equal(publicEndpoint("ht tp://user:pw@host/x?k=1"), "ht tp://host/x");
  assert.equal(publicEndpoint("user:pw@host/x"), "host/x");
});
