import assert from "node:assert/strict";
import { SynError } from "../core/mod.ts";
import { decryptText, encryptText, rowCipher } from "./_at_rest.ts";

const SECRET = "k".repeat(40);

// Written by the earlier implementation (Web Crypto for files, node:crypto for rows): what
// is on users' disks must still open.
const EARLIER_FILE =
  '{"syn_encrypted":1,"salt":"s6JCcuQp0rVZSUfaMNwkgg==","iv":"VMc5LHZg+l9CcYSX","data":"RFxLUJB4qCPU7hrVBUzV/3dvcEGVLzhf97awqT9pZrFhek4+"}';
const EARLIER_ROW = "enc1:nPDJlFAlrSKmYy9NBHQZyXMTDb0YdkcPoDPJVDZr9QKngbgBtwpVNQ==";
const ROW_SALT = new Uint8Array(16).fill(7);

function assertCode(run: () => unknown, code: string): void {
  assert.throws(run, (error) => error instanceof SynError && error.code === code);
}

Deno.test("decryptText() and rowCipher().open() read what earlier versions wrote", () => {
  assert.equal(decryptText(EARLIER_FILE, SECRET), "a checkpoint, é ✓");
  const cipher = rowCipher(SECRET, ROW_SALT);
  assert.equal(cipher.open(EARLIER_ROW), "a memory row");
  assert.equal(cipher.tag("word"), "1642b205f31e4c775c53");
});

Deno.test("encryptText() round-trips, with a fresh salt and iv each time", () => {
  const text = "ünïcode ✓ ".repeat(1000);
  const first = encryptText(text, SECRET);
  const second = encryptText(text, SECRET);
  assert.notEqual(first, second);
  assert.ok(!first.includes("cod"));
  assert.equal(decryptText(first, SECRET), text);
  assert.equal(encryptText(text, undefined), text);
  assert.equal(decryptText(text, undefined), text);
});

Deno.test("decryptText() refuses a wrong key, a changed byte, a missing key and plain text under a key", () => {
  const sealed = encryptText("secret notes", SECRET);
  assertCode(() => decryptText(sealed, "x".repeat(40)), "checkpoint_locked");
  const envelope = JSON.parse(sealed);
  const data = atob(envelope.data);
  const flipped = String.fromCharCode(data.charCodeAt(0) ^ 1) + data.slice(1);
  const changed = JSON.stringify({ ...envelope, data: btoa(flipped) });
  assertCode(() => decryptText(changed, SECRET), "checkpoint_locked");
  const cut = JSON.stringify({ ...envelope, data: "", iv: "" });
  assertCode(() => decryptText(cut, SECRET), "checkpoint_locked");
  assertCode(() => decryptText(sealed, undefined), "checkpoint_locked");
  assertCode(() => decryptText("{}", SECRET), "checkpoint_invalid");
});

Deno.test("rowCipher() seals rows that only its key opens; tags are equal for equal words", () => {
  const cipher = rowCipher(SECRET, ROW_SALT);
  const sealed = cipher.seal("a row ✓");
  assert.ok(sealed.startsWith("enc1:"));
  assert.notEqual(cipher.seal("a row ✓"), sealed);
  assert.equal(cipher.open(sealed), "a row ✓");
  assertCode(() => rowCipher("x".repeat(40), ROW_SALT).open(sealed), "checkpoint_locked");
  assertCode(() => rowCipher(SECRET, new Uint8Array(16)).open(sealed), "checkpoint_locked");
  assertCode(() => cipher.open("plain"), "checkpoint_invalid");
  assertCode(() => cipher.open("enc1:!!"), "checkpoint_locked");
  assert.equal(cipher.tag("w"), cipher.tag("w"));
  assert.notEqual(cipher.tag("w"), cipher.tag("v"));
});
