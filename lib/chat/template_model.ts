import { mockLanguageModel } from "../llm/mod.ts";
import type { GenerateRequest, LanguageModel } from "../llm/mod.ts";

/** Every template reply starts with this label, so nobody mistakes it for a model's answer. */
export const TEMPLATE_LABEL = "[template reply]";

function lastUser(request: GenerateRequest): string {
  const users = (request.messages ?? []).filter((message) => message.role === "user");
  return (users.at(-1)?.content ?? "").replace(/\s+/g, " ").trim();
}

/**
 * The offline backend: clearly labelled template replies, no network, no key. It is the
 * default when no provider key is set and the fallback when the model is unavailable.
 * It answers tool results with a short acknowledgement and never asks for tools itself.
 */
export function templateModel(): LanguageModel {
  return mockLanguageModel((request) => {
    const text = lastUser(request);
    if (text.startsWith("TOOL_RESULTS")) {
      const count = text.split("\n").length - 1;
      return `${TEMPLATE_LABEL} The tools answered (${count} result${count === 1 ? "" : "s"}).`;
    }
    const words = text.split(" ").length;
    const quoted = text.length > 80 ? `${text.slice(0, 77)}…` : text;
    return `${TEMPLATE_LABEL} No language model is configured, so this is a canned answer. ` +
      `You said (${words} word${words === 1 ? "" : "s"}): "${quoted}". Set OPENAI_API_KEY, ` +
      `ANTHROPIC_API_KEY or GEMINI_API_KEY (or OPENAI_ENDPOINT for a local server) for real replies.`;
  }, { provider: "mock", model: "template", endpoint: "template://local", chunkSize: 12 });
}
