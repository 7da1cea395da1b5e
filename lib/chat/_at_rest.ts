import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto";
import { SynError } from "../core/mod.ts";
import { concatBytes } from "../core/mod.ts";

/**
 * Encryption at rest for chat content (K-gent API §7: "encrypt at rest if persisted"), one
 * cipher for every place: AES-256-GCM with a key derived from the chat key (`SYN_CHAT_KEY`,
 * else the file `openChatKeyFile` keeps in the config folder) and a random salt by
 * HKDF-SHA-256. A sealed value is `iv (12 bytes) ‖ ciphertext ‖ tag (16 bytes)`. Synchronous
 * (`node:crypto`): memory rows are sealed inside SQLite calls.
 *
 * Where the salt lives makes the two containers: a checkpoint file carries its own salt,
 * `{"syn_encrypted":1,"salt","iv","data"}` (base64; `data` is ciphertext ‖ tag); memory rows
 * share one salt per database and are `enc1:` + base64 of the sealed value.
 */
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/** HKDF `info` per use: equal chat keys still give unrelated keys to files and rows. */
const FILE_KEY_INFO = "syn chat at rest v1";
const ROW_KEY_INFO = "syn chat memory v1";

/** What the messages call the key: it may be the variable or the file made for it. */
const CHAT_KEY_NAME = "the chat key (SYN_CHAT_KEY, else syn/chat.key in the config folder)";

function deriveKeys(secret: string, salt: Uint8Array, info: string, bytes: number): Uint8Array {
  return new Uint8Array(hkdfSync("sha256", secret, salt, info, bytes));
}

/** `text` sealed under `key`: iv ‖ ciphertext ‖ tag. */
function seal(key: Uint8Array, text: string): Uint8Array {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const parts = [iv, cipher.update(text, "utf8"), cipher.final(), cipher.getAuthTag()];
  return concatBytes(parts, parts.reduce((total, part) => total + part.length, 0));
}

/** The text of a value `seal` made; throws `checkpoint_locked` on a wrong key or a change. */
function open(key: Uint8Array, sealed: Uint8Array): string {
  try {
    if (sealed.length < IV_BYTES + TAG_BYTES) throw new Error("too short");
    const decipher = createDecipheriv("aes-256-gcm", key, sealed.subarray(0, IV_BYTES));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    const decoder = new TextDecoder();
    const text = decoder.decode(
      decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)),
      { stream: true },
    );
    return text + decoder.decode(decipher.final());
  } catch {
    throw new SynError(
      "checkpoint_locked",
      `Cannot decrypt: ${CHAT_KEY_NAME} is not the key it was written with`,
    );
  }
}

function toBase64(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

function fromBase64(text: string): Uint8Array {
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return new Uint8Array(0); // not base64: fails as a wrong key does
  }
}

/** `text` encrypted under `secret`, or `text` unchanged when there is no secret. */
export function encryptText(text: string, secret: string | undefined): string {
  if (!secret) return text;
  const salt = randomBytes(16);
  const sealed = seal(deriveKeys(secret, salt, FILE_KEY_INFO, KEY_BYTES), text);
  return JSON.stringify({
    syn_encrypted: 1,
    salt: toBase64(salt),
    iv: toBase64(sealed.subarray(0, IV_BYTES)),
    data: toBase64(sealed.subarray(IV_BYTES)),
  });
}

/** The plain text of a file written by `encryptText` (plain files pass through when no key is set). */
export function decryptText(text: string, secret: string | undefined): string {
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
  const iv = fromBase64(envelope.iv);
  const data = fromBase64(envelope.data);
  const sealed = concatBytes([iv, data], iv.length + data.length);
  return open(deriveKeys(secret, fromBase64(envelope.salt), FILE_KEY_INFO, KEY_BYTES), sealed);
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
 * Sealing of single values (memory rows) under one salt per database, and word tags
 * (HMAC-SHA-256 under a second derived key). `tag` is deterministic — equal words give
 * equal tags — so a search index can match words without holding them; that equality is
 * what it reveals.
 */
export interface RowCipher {
  seal(text: string): string;
  /** The plain text of a sealed value; throws `checkpoint_locked` on a wrong key. */
  open(sealed: string): string;
  tag(word: string): string;
}

const SEALED_PREFIX = "enc1:";

export function rowCipher(secret: string, salt: Uint8Array): RowCipher {
  const keys = deriveKeys(secret, salt, ROW_KEY_INFO, 2 * KEY_BYTES);
  const aesKey = keys.subarray(0, KEY_BYTES);
  const macKey = keys.subarray(KEY_BYTES);
  return {
    seal: (text) => SEALED_PREFIX + toBase64(seal(aesKey, text)),
    open(sealed) {
      if (!sealed.startsWith(SEALED_PREFIX)) {
        throw new SynError("checkpoint_invalid", "A memory row is not encrypted");
      }
      return open(aesKey, fromBase64(sealed.slice(SEALED_PREFIX.length)));
    },
    tag: (word) => createHmac("sha256", macKey).update(word).digest("hex").slice(0, 20),
  };
}
