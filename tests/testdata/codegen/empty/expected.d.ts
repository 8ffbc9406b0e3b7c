declare namespace empty {
// inputSchema {type: object}
function bare_object(): Promise<ToolResult>;
// additionalProperties false
function closed(): Promise<ToolResult>;
// inputSchema with empty properties
function no_properties(): Promise<ToolResult>;
// inputSchema {}
function no_schema_words(args?: { [key: string]: unknown }): Promise<ToolResult>;
// additionalProperties true
function open(args?: { [key: string]: unknown }): Promise<ToolResult>;
function undocumented(args: { x: unknown; y?: unknown; z?: never }): Promise<ToolResult>;
}
