// Docs ending in … are cut short; `mcpx types everything.<tool>` has them whole.
/** MCP reference server exercising every protocol feature */
declare namespace everything {
// Echoes back the input string
function echo(args: {
  message: string; // Message to echo
}): Promise<ToolResult>;
// Demonstrates how annotations can be used to provide metadata about content.
function get_annotated_message(args: {
  includeImage?: boolean; // Whether to include an example image
  messageType: "error" | "success" | "debug"; // Type of message to demonstrate different annotation patterns
}): Promise<ToolResult>;
// Returns all environment variables, helpful for debugging MCP server configuration
function get_env(): Promise<ToolResult>;
// Returns up to ten resource links that reference different types of resources
function get_resource_links(args?: {
  count?: number; // Number of resource links to return (1-10). Default: 3. Range: 1 to 10.
}): Promise<ToolResult>;
// Returns a resource reference that can be used by MCP clients
function get_resource_reference(args?: {
  resourceId?: number; // ID of the text resource to fetch. Default: 1.
  resourceType?: "Text" | "Blob"; // Default: "Text".
}): Promise<ToolResult>;
// Returns structured content along with an output schema for client data validation
function get_structured_content(args: {
  location: "New York" | "Chicago" | "Los Angeles"; // Choose city
}): Promise<ToolResult<{
  conditions: string; // Weather conditions description
  humidity: number; // Humidity percentage
  temperature: number; // Temperature in celsius
}>>;
// Returns the sum of two numbers
function get_sum(args: {
  a: number; // First number
  b: number; // Second number
}): Promise<ToolResult>;
// Returns a tiny MCP logo image.
function get_tiny_image(): Promise<ToolResult>;
// Compresses a single file using gzip compression. …
function gzip_file_as_resource(args?: {
  data?: string; // URL or data URI of the file content to compress. Default: "https://raw.githubusercontent.com/modelcontextprotocol/servers/refs/heads/main/README.md". Format: uri.
  name?: string; // Name of the output file. Default: "README.md.gz".
  outputType?: "resourceLink" | "resource"; // How the resulting gzipped file should be returned. … Default: "resourceLink".
}): Promise<ToolResult>;
// Simulates a deep research operation that gathers, analyzes, and synthesizes information. Demonstrates MCP task-based operations with progress through multiple stages. …
function simulate_research_query(args: {
  ambiguous?: boolean; // Simulate an ambiguous query that requires clarification (triggers input_required status)
  topic: string; // The research topic to investigate
}): Promise<ToolResult>;
// Toggles simulated, random-leveled logging on or off.
function toggle_simulated_logging(): Promise<ToolResult>;
// Toggles simulated resource subscription updates on or off.
function toggle_subscriber_updates(): Promise<ToolResult>;
// Demonstrates a long running operation with progress updates.
function trigger_long_running_operation(args?: {
  duration?: number; // Duration of the operation in seconds. Default: 10.
  steps?: number; // Number of steps in the operation. Default: 5.
}): Promise<ToolResult>;
}
