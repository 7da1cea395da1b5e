/** Gemini `models/{model}:generateContent` and `:streamGenerateContent?alt=sse`. */
import { ProviderError } from "./provider_error.ts";
import {
  asRecord,
  conversationOf,
  endpointUrl,
  makeUsage,
  numberOrUndefined,
  parseJsonEvent,
  reasonOfErrorWords,
  type Wire,
  type WireAnswer,
} from "./_wire.ts";
import type { StreamState } from "./_wire.ts";

function modelPath(model: string): string {
  return encodeURIComponent(model.replace(/^models\//, ""));
}

function candidateText(candidate: Record<string, unknown>): string {
  const parts = asRecord(candidate.content).parts;
  if (!Array.isArray(parts)) return "";
  return parts
    .map(asRecord)
    .filter((part) => typeof part.text === "string" && part.thought !== true)
    .map((part) => part.text as string)
    .join("");
}

function usageOf(body: Record<string, unknown>) {
  const usage = asRecord(body.usageMetadata);
  return makeUsage(
    numberOrUndefined(usage.promptTokenCount),
    numberOrUndefined(usage.candidatesTokenCount),
    numberOrUndefined(usage.totalTokenCount),
  );
}

function errorOf(body: Record<string, unknown>): ProviderError {
  const error = asRecord(body.error);
  return new ProviderError(
    reasonOfErrorWords(`${error.status ?? ""} ${error.code === 429 ? "rate_limit" : ""}`),
    `Error inside the stream: ${String(error.message ?? "unknown error").slice(0, 300)}`,
  );
}

export const geminiWire: Wire = {
  buildRequest(config, request, stream) {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (config.mode === "live" && config.apiKey) headers["x-goog-api-key"] = config.apiKey;
    const { system, turns } = conversationOf(request);
    const body: Record<string, unknown> = {
      contents: turns.map((turn) => ({
        role: turn.role === "assistant" ? "model" : "user",
        parts: [{ text: turn.content }],
      })),
    };
    if (system) body.systemInstruction = { parts: [{ text: system }] };
    const generationConfig: Record<string, unknown> = {};
    const temperature = request.temperature ?? config.temperature;
    if (temperature !== undefined) generationConfig.temperature = temperature;
    if (request.maxTokens !== undefined) generationConfig.maxOutputTokens = request.maxTokens;
    if (request.seed !== undefined) generationConfig.seed = request.seed;
    if (request.jsonSchema) {
      generationConfig.responseMimeType = "application/json";
      // responseJsonSchema takes standard JSON Schema; responseSchema only an OpenAPI subset.
      generationConfig.responseJsonSchema = request.jsonSchema;
    }
    if (Object.keys(generationConfig).length) body.generationConfig = generationConfig;
    const action = stream ? "streamGenerateContent?alt=sse" : "generateContent";
    if (stream) headers.accept = "text/event-stream";
    const url = endpointUrl(config.endpoint, `/models/${modelPath(config.model)}:${action}`);
    return { url, headers, body };
  },

  parseAnswer(body): WireAnswer {
    const record = asRecord(body);
    const candidates = record.candidates;
    if (!Array.isArray(candidates) || candidates.length === 0) {
      const blocked = asRecord(record.promptFeedback).blockReason;
      throw new ProviderError(
        "bad_response",
        blocked ? `Prompt blocked: ${String(blocked)}` : "Response has no candidates",
      );
    }
    const candidate = asRecord(candidates[0]);
    return {
      text: candidateText(candidate),
      usage: usageOf(record),
      finishReason: typeof candidate.finishReason === "string" ? candidate.finishReason : undefined,
    };
  },

  newStreamState(): StreamState {
    return { complete: false };
  },

  onEvent(state, event, _request, deliver) {
    const chunk = parseJsonEvent(event);
    if (chunk.error !== undefined) throw errorOf(chunk);
    const candidates = Array.isArray(chunk.candidates) ? chunk.candidates : [];
    const blocked = asRecord(chunk.promptFeedback).blockReason;
    // A blocked prompt streams one chunk with the reason and no candidates: retrying the
    // same prompt gives the same answer, so it is a bad_response (never retried), not a cut.
    if (candidates.length === 0 && blocked !== undefined) {
      throw new ProviderError("bad_response", `Prompt blocked: ${String(blocked).slice(0, 100)}`);
    }
    if (candidates.length > 0) {
      const candidate = asRecord(candidates[0]);
      const text = candidateText(candidate);
      if (text) deliver(text);
      if (typeof candidate.finishReason === "string") {
        state.finishReason = candidate.finishReason;
        // Gemini's stream has no end marker: a finish reason is its last word.
        state.complete = true;
      }
    }
    const usage = usageOf(chunk);
    if (usage) state.usage = usage;
    return false;
  },
};
