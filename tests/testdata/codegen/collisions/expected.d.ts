/** tool names that map to one identifier */
declare namespace collisions {
// Already an identifier: keeps the name
function fancy_name(): Promise<ToolResult>;
// Already spelled like a suffixed name
function fancy_name_2(): Promise<ToolResult>;
// Hyphenated Calls the tool "fancy-name".
function fancy_name_3(): Promise<ToolResult>;
// Dotted Calls the tool "fancy.name".
function fancy_name_4(): Promise<ToolResult>;
}
