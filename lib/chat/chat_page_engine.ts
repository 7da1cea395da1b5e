import { CHAT_PAGE } from "./chat_page.ts";

/** Which engine answers on a chat page: its label, and whether it is the offline template. */
export interface PageEngine {
  /** `template (offline)`, or provider and model, as the REPL's banner says it. */
  label: string;
  offline: boolean;
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]);
}

/**
 * The chat page naming the engine in its header, as the REPL's banner does; with the
 * offline template engine it also says, above the conversation, that the replies are
 * canned and how to get real ones. The label (a model name from the configuration) is
 * escaped.
 */
export function chatPageFor(engine: PageEngine): string {
  const label = `<small id="engine">model ${escapeHtml(engine.label)}</small>`;
  const notice = engine.offline
    ? `<p id="offline" class="msg" role="note" style="background: #fff4d6; margin: .5rem 1rem">` +
      `Offline template engine: no language model is configured, so replies are canned. ` +
      `Set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY (or OPENAI_ENDPOINT for a ` +
      `local server) and restart syn chat serve for real replies.</p>`
    : "";
  return CHAT_PAGE
    .replace(
      `<small id="session"></small></header>`,
      `<small id="session"></small>${label}</header>`,
    )
    .replace(
      `<div id="log" aria-live="polite"></div>`,
      `${notice}<div id="log" aria-live="polite"></div>`,
    );
}
