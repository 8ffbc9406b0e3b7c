/** outputSchema typed results */
declare namespace output {
type Item = { id: number };
// No arguments, a result that does not fit beside them
function a_tool_with_a_rather_long_name_that_pushes_the_signature_past_the_line_width(): Promise<ToolResult<{ firstResultField: string; secondResultField?: number }>>;
// The parameter goes on its own line
function an_even_longer_tool_name_that_leaves_no_room_for_its_arguments_on_the_first_line_at_all(): Promise<ToolResult>;
// A short result on one line
function list_items(): Promise<ToolResult<{ items: string[] }>>;
// A result whose union needs several lines
function long_union_result(args?: {
  a?: string; // Input
}): Promise<ToolResult<{ status: "pending-approval" | "approved-by-reviewer" | "rejected-by-reviewer" | "withdrawn-by-author" | "merged" }>>;
// An object result
function weather(args: { city: string }): Promise<ToolResult<{
  conditions: string;
  temperature: number; // Celsius
}>>;
// An output schema with its own $defs
function with_defs(): Promise<ToolResult<{ items: Item[] }>>;
}
