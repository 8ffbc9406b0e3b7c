// Docs ending in … are cut short; `mcpx types docs.<tool>` has them whole.
/**
 * Descriptions that need care:
 * *\/ inside, several lines, notes
 */
declare namespace docs {
/** Closes a comment *\/ early if not escaped. Second line. … */
function commented(args?: {
  /** Exactly 4 characters. */ code?: string;
  /** How many. Default: 10. Range: 1 to 50. */ count?: number;
  /** Like '**\/*.ts'. Pattern: `^[a-z*\/]+$`. */ glob?: string;
  /** Greater than 0. */ legacy?: number;
  /** Says its default already: default is fast */ mode?: "fast" | "slow";
  /** 1 to 64 characters. Format: hostname. */ name?: string;
  none?: string[];
  off?: boolean;
  /**
   * Use name instead
   * @deprecated
   */
  old?: string;
  /** Greater than 0. Less than 1. Multiple of 0.25. */ ratio?: number;
  safeInt?: number;
  /** Default: "2020-01-01T00:00:00Z". Format: date-time. */ when?: string;
}): Promise<ToolResult>;
}
