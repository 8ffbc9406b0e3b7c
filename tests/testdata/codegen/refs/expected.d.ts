/** $ref into $defs and definitions */
declare namespace refs {
type Args = { q: string };
type Point = { lat: number; lon: number };
// A point on the plane
type Point_2 = { x: number; y: number };
// A def that would shadow a global the declarations use
type Promise_ = number;
type a_b = "slash";
// A def named like a reserved word
type default_ = string;
type string_ = boolean;
type with_space = number;
// draft-07 definitions; a Point that differs from the other tool's
function use_definitions(args: { at: Point }): Promise<ToolResult>;
// 2020-12 $defs, shared between input and output
function use_defs(args: {
  anchor?: unknown; external?: unknown;
  from: Point_2; // Where to start
  keyword?: string_; missing?: unknown; path?: Point_2[]; reserved?: default_; sameAsTo?: Point_2;
  shadow?: Promise_; slash?: a_b; spaced?: with_space; to: Point_2;
}): Promise<ToolResult<{ end: Point_2 }>>;
// The arguments are themselves a reference
function whole_ref(args: Args): Promise<ToolResult>;
}
