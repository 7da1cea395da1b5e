import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { sha256 } from "./sha256.ts";

const hex = (bytes: Uint8Array) =>
  Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
const nodeSha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

Deno.test("sha256() gives the FIPS 180-4 test vectors", () => {
  assert.equal(hex(sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert.equal(
    hex(sha256("abc")),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.equal(
    hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
});

Deno.test("sha256() answers as node:crypto for every length around the block edges, text and bytes", () => {
  for (let length = 0; length < 300; length++) {
    const bytes = Uint8Array.from({ length }, (_, index) => (index * 131 + length) & 0xff);
    assert.equal(hex(sha256(bytes)), nodeSha256(bytes), `${length} bytes`);
  }
  const text = "héllo ✓ 𝄞\u0000".repeat(1000);
  assert.equal(hex(sha256(text)), nodeSha256(text));
});
