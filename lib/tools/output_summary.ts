/**
 * The output summary a tool event keeps of a call's output — in `syn tools --trace`
 * lines, in what `syn mcp-serve --tools` and `syn mcp-proxy` record — and the form
 * validation puts executed outputs in to compare them with recorded ones. One cap for
 * every writer, so replay and execution compare like for like.
 *
 * Why 4096 characters: parameter analysis finds a step's input in the previous step's
 * summary, parsed as JSON when it parses — a cut summary is not JSON, and a value past
 * the cut is not found at all, so a wire through a directory listing or a search result
 * of more than a dozen paths would be missed at 500. Replay scores summaries against
 * summaries cut the same way, and the synthesis prompt shows the first 2000 characters.
 * A peer's output can be any size: the cap keeps an event small (a few KiB).
 */

/** A summary keeps this many characters of the output; a longer one ends with "…". */
export const OUTPUT_SUMMARY_CHARS = 4096;

/** `text` cut to {@linkcode OUTPUT_SUMMARY_CHARS}, marked with an ellipsis when cut. */
export function capSummary(text: string): string {
  return text.length > OUTPUT_SUMMARY_CHARS ? `${text.slice(0, OUTPUT_SUMMARY_CHARS)}…` : text;
}

/** A tool output (or error) as a summary: its JSON, capped. */
export function outputSummary(output: unknown): string {
  return capSummary(JSON.stringify(output) ?? "null");
}
