/** cycles through $ref */
declare namespace recursive {
type A = { b?: B };
type B = { a?: A };
type Json = string | number | boolean | Json[] | { [key: string]: Json } | null;
type Left = unknown;
type Node = { children?: Node[]; name: string };
type Right = unknown;
type Self = unknown;
// Two defs referring to each other through properties
function mutual(args?: { start?: A }): Promise<ToolResult>;
// A reference to the whole document is inlined once, then unknown
function root_ref(args?: { next?: { next?: unknown; value?: string }; value?: string }): Promise<ToolResult>;
// A tree: recursion through a property stays named
function tree(args: { root: Node }): Promise<ToolResult>;
// Cycles TypeScript cannot say bottom out in unknown
function unguarded(args?: { json?: Json; left?: Left; self?: Self }): Promise<ToolResult>;
}
