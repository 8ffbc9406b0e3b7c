/** enums, consts and literals */
declare namespace enums {
/** Literal unions from enum and const */
function pick(args: {
  /** A colour */ color: "red" | "green" | "blue";
  flag?: true;
  kind: "fixed";
  level?: 1 | 2 | 3;
  /** Default: "alpha". */
  many?:
    | "alpha"
    | "bravo"
    | "charlie"
    | "delta"
    | "echo"
    | "foxtrot"
    | "golf"
    | "hotel"
    | "india"
    | "juliett"
    | "kilo"
    | "lima";
  mixed?: "a" | 1 | true | null;
  negative?: -1 | 0.5 | 1e+21;
  none?: never;
  /** An object value has no literal type, so the union is unknown */ objecty?: unknown;
  quoted?: 'say "hi"' | "it's" | "back\\slash" | "new\nline";
}): Promise<ToolResult>;
}
