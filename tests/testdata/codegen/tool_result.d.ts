/** The MCP result envelope, as the server sent it: image bytes live here. */
interface RawResult {
  content?: { type: string; text?: string; data?: string; mimeType?: string }[];
  structuredContent?: unknown;
  isError?: boolean;
  [key: string]: unknown;
}

/**
 * A tool's result, unwrapped: structured content already parsed, JSON-in-text already parsed,
 * plain text as a string. `T` is the tool's output schema when it declares one. `.raw` holds
 * the full MCP envelope.
 */
type ToolResult<T = unknown> = T & { readonly raw: RawResult };

/** A tool reported an error (`isError`), or the call could not be made. */
declare class ToolError extends Error {
  server: string;
  tool: string;
  code: string;
  raw: RawResult | undefined;
}
