// Types of the generated `_embedded_validators.js`.
import type { VerdictFunction } from "./_ajv.ts";

/** The schema files the validators were generated from: their texts by file name. */
export declare const SCHEMA_SOURCES: Readonly<Record<string, string>>;
/** One standalone ajv validator per embedded schema, keyed by `$id`. */
export declare const VALIDATORS: Readonly<Record<string, VerdictFunction>>;
