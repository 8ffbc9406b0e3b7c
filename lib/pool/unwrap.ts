import type { CallToolEnvelope } from "../mcp/types.ts";

/**
 * A non-text content item described in one line, since bytes must not reach a terminal: its
 * type, mime type and size, and the file that holds its bytes once the CLI has saved them
 * (`file`, `bytes`), else where they are (`.raw`, `--raw`).
 */
export function describeContent(item: {
  type: string;
  mimeType?: string;
  data?: string;
  bytes?: number;
  file?: string;
  [k: string]: unknown;
}): string {
  const resource = item.type === "resource" && item.resource && typeof item.resource === "object"
    ? item.resource as { mimeType?: string; blob?: string; bytes?: number; file?: string }
    : undefined;
  const data = item.data ?? resource?.blob;
  const mime = item.mimeType ?? resource?.mimeType;
  const bytes = item.bytes ?? resource?.bytes ?? (data ? Math.floor((data.length * 3) / 4) : 0);
  const size = bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${bytes} B`;
  const file = item.file ?? resource?.file;
  return `[${item.type}${mime ? ` ${mime}` : ""}, ${size}; ${
    file ? `saved in ${file}` : "use --raw for the bytes"
  }]`;
}

/**
 * A result as a caller wants it: structured content parsed, JSON-in-text parsed, plain text as a
 * string; several items are joined, and non-text items are described.
 */
export function unwrapResult(envelope: CallToolEnvelope): unknown {
  if (envelope.structuredContent !== undefined) return envelope.structuredContent;
  const content = envelope.content ?? [];
  const texts = content.filter((c) => c.type === "text").map((c) => c.text ?? "");
  if (content.length === 1 && texts.length === 1) {
    const t = texts[0].trim();
    if ((t.startsWith("{") && t.endsWith("}")) || (t.startsWith("[") && t.endsWith("]"))) {
      try {
        return JSON.parse(t);
      } catch { /* text that only looks like JSON */ }
    }
    return texts[0];
  }
  return content.map((c) => (c.type === "text" ? c.text ?? "" : describeContent(c))).join("\n");
}

/** The text a failing tool gave, for the error message. */
export function errorText(envelope: CallToolEnvelope): string {
  const text = (envelope.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join(
    " ",
  ).trim();
  return text || "the server gave no reason";
}

/** At most `max` characters of a value as JSON (or text), for an event a person reads. */
export function summarize(value: unknown, max = 200): string {
  let text: string;
  try {
    text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  // Cut before collapsing the white space: a result may be megabytes.
  text = text.slice(0, max * 4).replace(/\s+/g, " ").trim();
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}

/**
 * A result as {@linkcode summarize} shows it, read from the envelope without parsing or
 * re-encoding all of it: its first text, else its structured content, else its content's types.
 */
export function summarizeResult(envelope: CallToolEnvelope, max = 200): string {
  const text = envelope.content?.find((c) => c.type === "text" && typeof c.text === "string");
  if (text) return summarize(text.text!.slice(0, max * 4), max);
  if (envelope.structuredContent !== undefined) return summarize(envelope.structuredContent, max);
  return summarize(`[${(envelope.content ?? []).map((c) => c.type).join(", ")}]`, max);
}
