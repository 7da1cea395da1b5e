import { Buffer } from "node:buffer";
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto";
import { SynError } from "../core/mod.ts";

/**
 * Encryption at rest for chat content (K-gent API §7: "encrypt at rest if persisted"):
 * AES-256-GCM from Web Crypto, the key derived from the chat key (`SYN_CHAT_KEY`, else the
 * file `openChatKeyFile` keeps in the config folder) with HKDF-SHA-256 and a
 * random salt per file. Envelope: `{"syn_encrypted":1,"salt","iv","data"}` (base64).
 */
const encoder = new TextEncoder();

/** What the messages call the key: it may be the variable or the file made for it. */
const CHAT_KEY_NAME = "the chat key (SYN_CHAT_KEY, else syn/chat.key in the config folder)";

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
        "This file is not encrypted but a chat key is in use (move it away to start anew)",
      );
    }
    return text;
  }
  if (!secret) {
    throw new SynError(
      "checkpoint_locked",
      "This file is encrypted: set SYN_CHAT_KEY (or keep syn/chat.key) to read it",
    );
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
      `Cannot decrypt: ${CHAT_KEY_NAME} is not the key it was written with`,
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

/**
 * Synchronous sealing of single values (memory rows): AES-256-GCM and HMAC-SHA-256 from
 * `node:crypto`, both keys derived with HKDF-SHA-256 from `SYN_CHAT_KEY` and one random
 * salt per database. `tag` is deterministic — equal words give equal tags — so a search
 * index can match words without holding them; that equality is what it reveals.
 */
export interface RowCipher {
  seal(text: string): string;
  /** The plain text of a sealed value; throws `checkpoint_locked` on a wrong key. */
  open(sealed: string): string;
  tag(word: string): string;
}

const SEALED_PREFIX = "enc1:";

export function rowCipher(secret: string, salt: Uint8Array): RowCipher {
  const keys = new Uint8Array(hkdfSync("sha256", secret, salt, "syn chat memory v1", 64));
  const aesKey = keys.subarray(0, 32);
  const macKey = keys.subarray(32);
  return {
    seal(text) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", aesKey, iv);
      const data = Buffer.concat([
        cipher.update(text, "utf8"),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      return SEALED_PREFIX + Buffer.concat([iv, data]).toString("base64");
    },
    open(sealed) {
      if (!sealed.startsWith(SEALED_PREFIX)) {
        throw new SynError("checkpoint_invalid", "A memory row is not encrypted");
      }
      try {
        const bytes = Buffer.from(sealed.slice(SEALED_PREFIX.length), "base64");
        const decipher = createDecipheriv("aes-256-gcm", aesKey, bytes.subarray(0, 12));
        decipher.setAuthTag(bytes.subarray(bytes.length - 16));
        return Buffer.concat([
          decipher.update(bytes.subarray(12, bytes.length - 16)),
          decipher.final(),
        ])
          .toString("utf8");
      } catch {
        throw new SynError(
          "checkpoint_locked",
          `Cannot decrypt: ${CHAT_KEY_NAME} is not the key it was written with`,
        );
      }
    },
    tag(word) {
      return createHmac("sha256", macKey).update(word).digest("hex").slice(0, 20);
    },
  };
}
