import type { CallToolEnvelope } from "../mcp/types.ts";
import type { CallOutput } from "../pool/registry.ts";
import type { McpxError } from "../errors.ts";
import { unwrapResult } from "../pool/unwrap.ts";
import { boundDocument, boundText, type OutputBound } from "./bound.ts";
import { spill } from "./spill.ts";

const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/svg+xml": "svg",
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/mpeg": "mp3",
  "audio/ogg": "ogg",
  "application/pdf": "pdf",
  "application/zip": "zip",
  "application/json": "json",
  "application/octet-stream": "bin",
  "text/plain": "txt",
};

/** A file extension for a mime type: the common ones by name, else its subtype, else `bin`. */
export function extensionOf(mime: string | undefined): string {
  if (!mime) return "bin";
  return EXTENSIONS[mime] ?? (mime.split("/")[1]?.replace(/[^a-z0-9]/gi, "").slice(0, 8) || "bin");
}

function decodeBase64(text: string): Uint8Array | undefined {
  try {
    const binary = atob(text);
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  } catch {
    return undefined;
  }
}

/** Saves base64 `data` in a file of its own; what replaces it in the envelope. */
function save(data: string, mime: string | undefined, bound: OutputBound) {
  const bytes = decodeBase64(data);
  // Not base64 after all: kept as the text it is, still out of the printed output.
  const saved = bytes
    ? spill(bound.dir, bound.stem, extensionOf(mime), bytes)
    : spill(bound.dir, bound.stem, "b64", data);
  return { bytes: saved.bytes, file: saved.path };
}

/**
 * The envelope as the CLI prints it: binary content (image, audio, a blob resource) never
 * inline. Each such item's bytes go to a file of their own, and the item keeps its type and mime
 * type with `bytes` (the size) and `file` (where) in place of `data` (or `blob`).
 */
export function externalize(envelope: CallToolEnvelope, bound: OutputBound): CallToolEnvelope {
  if (!Array.isArray(envelope.content)) return envelope;
  const content = envelope.content.map((item) => {
    if ((item.type === "image" || item.type === "audio") && typeof item.data === "string") {
      const { data, ...rest } = item;
      return { ...rest, ...save(data, item.mimeType, bound) };
    }
    const resource = item.resource as { blob?: unknown; mimeType?: string } | undefined;
    if (item.type === "resource" && resource && typeof resource.blob === "string") {
      const { blob, ...rest } = resource;
      return { ...item, resource: { ...rest, ...save(blob as string, resource.mimeType, bound) } };
    }
    return item;
  });
  return { ...envelope, content };
}

/**
 * The line a call that ran on a fresh process prints to stderr (its session's process was
 * stopped to make room, or exited): whatever the old one held is gone, and the caller must know.
 */
export function restartWarning(out: CallOutput): string | undefined {
  if (out.alone !== undefined) {
    return `mcpx: warning: ${out.server}.${out.tool} ran on a process of its own, stopped as the ` +
      `call ended, so what it opened (pages, logins) is gone: ${out.server} keeps per-caller ` +
      `state and is leased per session; ${out.alone}\n`;
  }
  if (!out.restarted) return undefined;
  return `mcpx: warning: ${out.server}.${out.tool} ran on a fresh process for ${out.instance.key}: ` +
    `the one before was ${out.restartReason}, and any state it held (pages, logins) is gone\n`;
}

/**
 * What a person reads of a result: its text when the structured content only wraps that text
 * (server-filesystem answers `{ content: <the text> }` beside the same text), so a file or a
 * listing prints as itself and not as a JSON string with `\n` escapes; else the unwrapped value.
 */
export function humanValue(envelope: CallToolEnvelope): unknown {
  const structured = envelope.structuredContent as Record<string, unknown> | undefined;
  const content = envelope.content ?? [];
  if (structured && typeof structured === "object" && !Array.isArray(structured)) {
    const values = Object.values(structured);
    const texts = content.filter((c) => c.type === "text");
    if (
      values.length === 1 && typeof values[0] === "string" && texts.length === content.length &&
      texts.length > 0 && texts.map((c) => c.text ?? "").join("\n") === values[0]
    ) {
      return values[0];
    }
  }
  return unwrapResult(envelope);
}

/**
 * Plain `mcpx call`: the unwrapped value (text as it is, anything else as JSON), or with `--raw`
 * the envelope; binary saved to files, and past the bound the head and the spill line.
 */
export function renderCall(out: CallOutput, raw: boolean, bound: OutputBound): string {
  const envelope = out.raw === undefined
    ? undefined
    : externalize(out.raw as CallToolEnvelope, bound);
  if (raw && envelope) {
    return boundText(JSON.stringify(envelope, null, 2) + "\n", bound, "json").text;
  }
  const value = envelope ? humanValue(envelope) : out.result;
  if (typeof value === "string") {
    return boundText(value.endsWith("\n") ? value : value + "\n", bound).text;
  }
  return boundText(JSON.stringify(value, null, 2) + "\n", bound, "json").text;
}

/**
 * `mcpx --json call`: the MCP result envelope (so `.content`, `.structuredContent` and
 * `.isError` read as they do from any MCP client), with `mcpx` saying who served it: server,
 * tool, instance and duration. Binary is saved to files; past the bound the document is cut and
 * marked (`truncated`, `spilledTo`, `bytes`).
 */
export function callDocument(out: CallOutput, bound: OutputBound): unknown {
  const envelope = externalize((out.raw ?? { content: [] }) as CallToolEnvelope, bound);
  const doc = {
    ...envelope,
    mcpx: {
      server: out.server,
      tool: out.tool,
      instance: out.instance,
      durationMs: out.durationMs,
      ...(out.restarted ? { restarted: true, restartReason: out.restartReason } : {}),
      ...(out.alone !== undefined ? { alone: out.alone } : {}),
    },
  };
  return boundDocument(doc, bound, ["isError", "mcpx"]);
}

/** `mcpx --json call` of a tool that reported an error: its envelope, `isError` and the error. */
export function callErrorDocument(
  error: McpxError,
  input: { server?: unknown; tool?: unknown },
  bound: OutputBound,
): unknown {
  const data = error.data as CallToolEnvelope | undefined;
  if (error.code !== "TOOL_ERROR" || !data || typeof data !== "object") return undefined;
  const doc = {
    ...externalize(data, bound),
    isError: true,
    mcpx: { server: input.server, tool: input.tool },
    error: {
      code: error.code,
      message: error.message,
      ...(error.hint ? { hint: error.hint } : {}),
    },
  };
  return boundDocument(doc, bound, ["isError", "mcpx", "error"]);
}
