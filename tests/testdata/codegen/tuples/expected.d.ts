/** tuples and arrays */
declare namespace tuples {
/** prefixItems, items arrays and plain arrays */
function arrays(args: {
  anyItems?: unknown[];
  /** At least 2 items. */ draft7?: [number, number, ...string[]];
  /** At most 0 items. */ empty?: [];
  /** At least 1 item. */ head?: [string, ...boolean[]];
  loose?: [string?, (string | number)?];
  matrix?: number[][];
  objects?: {
    /** Identifier */ id: string;
  }[];
  /** At least 2 items. */ pair: [string, number];
  /** 1 to 3 items. Items are unique. */ unionItems?: (string | number)[];
}): Promise<ToolResult>;
}
