/** reserved words and names that are not identifiers */
declare namespace names {
// A leading digit gets an underscore
function _2fa(): Promise<ToolResult>;
// Only a title Calls the tool "class".
function class_(): Promise<ToolResult>;
// A tool named like a reserved word Calls the tool "delete".
function delete_(args: {
  ""?: string; // The empty name
  $x?: string; "0"?: number; "a-b": string;
  class: string; // Reserved words are fine as property names
  default?: boolean; 'say "hi"'?: string; "with space"?: string; ünï?: string;
}): Promise<ToolResult>;
// Calls the tool "eval".
function eval_(): Promise<ToolResult>;
// Hyphens become underscores
function new_item(): Promise<ToolResult>;
}
