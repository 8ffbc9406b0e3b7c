// Docs ending in … are cut short; `mcpx types docs.<tool>` has them whole.
/**
 * Descriptions that need care:
 * *\/ inside, several lines, notes
 */
declare namespace docs {
// Closes a comment */ early if not escaped. Second line. …
function commented(args?: {
  code?: string; // Exactly 4 characters.
  count?: number; // How many. Default: 10. Range: 1 to 50.
  glob?: string; // Like '**/*.ts'. Pattern: `^[a-z*/]+$`.
  legacy?: number; // Greater than 0.
  mode?: "fast" | "slow"; // Says its default already: default is fast
  name?: string; // 1 to 64 characters. Format: hostname.
  none?: string[]; off?: boolean;
  old?: string; // Use name instead @deprecated
  ratio?: number; // Greater than 0. Less than 1. Multiple of 0.25.
  safeInt?: number;
  when?: string; // Default: "2020-01-01T00:00:00Z". Format: date-time.
}): Promise<ToolResult>;
}
