// Types of the generated `_embedded_validators.js`.
import type { VerdictFunction } from "./_ajv.ts";

/** Fingerprint of the schema files the validators were generated from. */
export declare const SCHEMA_FINGERPRINT: string;
/** One standalone ajv validator per embedded schema, keyed by `$id`. */
export declare const VALIDATORS: Readonly<Record<string, VerdictFunction>>;
