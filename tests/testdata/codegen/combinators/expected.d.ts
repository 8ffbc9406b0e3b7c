/** oneOf, anyOf, allOf */
declare namespace combinators {
type Base = { id: string };
// Unions and intersections
function shapes(args: {
  anything?: unknown; both?: Base & { extra?: boolean }; duplicates?: string | number;
  either?: string | string[]; impossible?: never; nested?: (string | number) & (number | boolean);
  oneRequired?: { a?: string; b?: string };
  // A discriminated union
  shape: (
    | {
      kind: "circle";
      radius: number; // In pixels
    }
    | { kind: "square"; side: number }
  );
  typedUnion?: { x: number } | { y: number };
}): Promise<ToolResult>;
}
