/** tuples and arrays */
declare namespace tuples {
// prefixItems, items arrays and plain arrays
function arrays(args: {
  anyItems?: unknown[];
  draft7?: [number, number, ...string[]]; // At least 2 items.
  empty?: []; // At most 0 items.
  head?: [string, ...boolean[]]; // At least 1 item.
  loose?: [string?, (string | number)?]; matrix?: number[][];
  objects?: {
    id: string; // Identifier
  }[];
  pair: [string, number]; // At least 2 items.
  unionItems?: (string | number)[]; // 1 to 3 items. Items are unique.
}): Promise<ToolResult>;
}
