import { SynError } from "../core/mod.ts";

/**
 * Encryption at rest for chat content (K-gent API §7: "encrypt at rest if persisted"):
 * AES-256-GCM from Web Crypto, the key derived from `SYN_CHAT_KEY` with HKDF-SHA-256 and a
 * random salt per file. Envelope: `{"syn_encrypted":1,"salt","iv","data"}` (base64).
 */
const encoder = new TextEncoder();

async function deriveKey(secret: string, salt: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  const material = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, [
    "deriveKey",
  ]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt, info: encoder.encode("syn chat at rest v1") },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

function toBase64(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

/** `text` encrypted under `secret`, or `text` unchanged when there is no secret. */
export async function encryptText(text: string, secret: string | undefined): Promise<string> {
  if (!secret) return text;
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const key = await deriveKey(secret, salt);
  const data = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, encoder.encode(text)),
  );
  return JSON.stringify({
    syn_encrypted: 1,
    salt: toBase64(salt),
    iv: toBase64(iv),
    data: toBase64(data),
  });
}

/** The plain text of a file written by `encryptText` (plain files pass through when no key is set). */
export async function decryptText(text: string, secret: string | undefined): Promise<string> {
  const envelope = parseEnvelope(text);
  if (!envelope) {
    if (secret) {
      throw new SynError(
        "checkpoint_invalid",
        "This file is not encrypted but SYN_CHAT_KEY is set",
      );
    }
    return text;
  }
  if (!secret) {
    throw new SynError("checkpoint_locked", "This file is encrypted: set SYN_CHAT_KEY to read it");
  }
  try {
    const key = await deriveKey(secret, fromBase64(envelope.salt));
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: fromBase64(envelope.iv) },
      key,
      fromBase64(envelope.data),
    );
    return new TextDecoder().decode(plain);
  } catch {
    throw new SynError(
      "checkpoint_locked",
      "Cannot decrypt: SYN_CHAT_KEY is not the key it was written with",
    );
  }
}

function parseEnvelope(text: string): { salt: string; iv: string; data: string } | undefined {
  if (!text.startsWith('{"syn_encrypted":1')) return undefined;
  try {
    const value = JSON.parse(text);
    if (
      typeof value.salt === "string" && typeof value.iv === "string" &&
      typeof value.data === "string"
    ) return value;
  } catch {
    // not an envelope
  }
  return undefined;
}
