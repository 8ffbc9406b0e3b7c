/** enums, consts and literals */
declare namespace enums {
// Literal unions from enum and const
function pick(args: {
  color: "red" | "green" | "blue"; // A colour
  flag?: true; kind: "fixed"; level?: 1 | 2 | 3;
  many?: "alpha" | "bravo" | "charlie" | "delta" | "echo" | "foxtrot" | "golf" | "hotel" | "india" | "juliett" | "kilo" | "lima"; // Default: "alpha".
  mixed?: "a" | 1 | true | null; negative?: -1 | 0.5 | 1e+21; none?: never;
  objecty?: unknown; // An object value has no literal type, so the union is unknown
  quoted?: 'say "hi"' | "it's" | "back\\slash" | "new\nline";
}): Promise<ToolResult>;
}
