// Docs ending in … are cut short; `mcpx types everything.<tool>` has them whole.
/** MCP reference server exercising every protocol feature */
declare namespace everything {
/** Echoes back the input string */
function echo(args: {
  /** Message to echo */ message: string;
}): Promise<ToolResult>;
/** Demonstrates how annotations can be used to provide metadata about content. */
function get_annotated_message(args: {
  /** Whether to include an example image */ includeImage?: boolean;
  /** Type of message to demonstrate different annotation patterns */
  messageType: "error" | "success" | "debug";
}): Promise<ToolResult>;
/** Returns all environment variables, helpful for debugging MCP server configuration */
function get_env(): Promise<ToolResult>;
/** Returns up to ten resource links that reference different types of resources */
function get_resource_links(args?: {
  /** Number of resource links to return (1-10). Default: 3. Range: 1 to 10. */ count?: number;
}): Promise<ToolResult>;
/** Returns a resource reference that can be used by MCP clients */
function get_resource_reference(args?: {
  /** ID of the text resource to fetch. Default: 1. */ resourceId?: number;
  /** Default: "Text". */ resourceType?: "Text" | "Blob";
}): Promise<ToolResult>;
/** Returns structured content along with an output schema for client data validation */
function get_structured_content(args: {
  /** Choose city */ location: "New York" | "Chicago" | "Los Angeles";
}): Promise<
  ToolResult<{
    /** Weather conditions description */ conditions: string;
    /** Humidity percentage */ humidity: number;
    /** Temperature in celsius */ temperature: number;
  }>
>;
/** Returns the sum of two numbers */
function get_sum(args: {
  /** First number */ a: number;
  /** Second number */ b: number;
}): Promise<ToolResult>;
/** Returns a tiny MCP logo image. */
function get_tiny_image(): Promise<ToolResult>;
/** Compresses a single file using gzip compression. … */
function gzip_file_as_resource(args?: {
  /** URL or data URI of the file content to compress. Default: "https://raw.githubusercontent.com/modelcontextprotocol/servers/refs/heads/main/README.md". Format: uri. */
  data?: string;
  /** Name of the output file. Default: "README.md.gz". */ name?: string;
  /** How the resulting gzipped file should be returned. … Default: "resourceLink". */
  outputType?: "resourceLink" | "resource";
}): Promise<ToolResult>;
/** Simulates a deep research operation that gathers, analyzes, and synthesizes information. Demonstrates MCP task-based operations with progress through multiple stages. … */
function simulate_research_query(args: {
  /** Simulate an ambiguous query that requires clarification (triggers input_required status) */
  ambiguous?: boolean;
  /** The research topic to investigate */ topic: string;
}): Promise<ToolResult>;
/** Toggles simulated, random-leveled logging on or off. */
function toggle_simulated_logging(): Promise<ToolResult>;
/** Toggles simulated resource subscription updates on or off. */
function toggle_subscriber_updates(): Promise<ToolResult>;
/** Demonstrates a long running operation with progress updates. */
function trigger_long_running_operation(args?: {
  /** Duration of the operation in seconds. Default: 10. */ duration?: number;
  /** Number of steps in the operation. Default: 5. */ steps?: number;
}): Promise<ToolResult>;
}
