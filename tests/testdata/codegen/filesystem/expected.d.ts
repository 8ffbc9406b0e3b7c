// Docs ending in … are cut short; `mcpx types filesystem.<tool>` has them whole.
/** read and write files under allowed directories */
declare namespace filesystem {
// Create a new directory or ensure a directory exists. Can create multiple nested directories in one operation. If the directory already exists, this operation will succeed silently. …
function create_directory(args: { path: string }): Promise<ToolResult<{ content: string }>>;
// Get a recursive tree view of files and directories as a JSON structure. Each entry includes 'name', 'type' (file/directory), and 'children' for directories. …
function directory_tree(args: { excludePatterns?: string[]; path: string }): Promise<ToolResult<{ content: string }>>;
// Make line-based edits to a text file. Each edit replaces exact line sequences with new content. Returns a git-style diff showing the changes made. Only works within allowed directories.
function edit_file(args: {
  dryRun?: boolean; // Preview changes using git-style diff format
  edits: {
    newText: string; // Text to replace with
    oldText: string; // Text to search for - must match exactly
  }[];
  path: string;
}): Promise<ToolResult<{ content: string }>>;
// Retrieve detailed metadata about a file or directory. Returns comprehensive information including size, creation time, last modified time, permissions, and type. …
function get_file_info(args: { path: string }): Promise<ToolResult<{ content: string }>>;
// Returns the list of directories that this server is allowed to access. Subdirectories within these allowed directories are also accessible. …
function list_allowed_directories(): Promise<ToolResult<{ content: string }>>;
// Get a detailed listing of all files and directories in a specified path. Results clearly distinguish between files and directories with [FILE] and [DIR] prefixes. …
function list_directory(args: { path: string }): Promise<ToolResult<{ content: string }>>;
// Get a detailed listing of all files and directories in a specified path, including sizes. Results clearly distinguish between files and directories with [FILE] and [DIR] prefixes. …
function list_directory_with_sizes(args: {
  path: string;
  sortBy?: "name" | "size"; // Sort entries by name or size. Default: "name".
}): Promise<ToolResult<{ content: string }>>;
// Move or rename files and directories. Can move files between directories and rename them in a single operation. If the destination exists, the operation will fail. …
function move_file(args: { destination: string; source: string }): Promise<ToolResult<{ content: string }>>;
// Read the complete contents of a file as text. DEPRECATED: Use read_text_file instead.
function read_file(args: {
  head?: number; // If provided, returns only the first N lines of the file
  path: string;
  tail?: number; // If provided, returns only the last N lines of the file
}): Promise<ToolResult<{ content: string }>>;
// Read a file and return it as a base64-encoded content block with its MIME type. Image and audio files are returned as image/audio content; any other file type is returned as an embedded resource. …
function read_media_file(args: { path: string }): Promise<ToolResult<{ content: ({ data: string; mimeType: string; type: "image" | "audio" } | { resource: { blob: string; mimeType?: string; uri: string }; type: "resource" })[] }>>;
// Read the contents of multiple files simultaneously. This is more efficient than reading files one by one when you need to analyze or compare multiple files. …
function read_multiple_files(args: {
  paths: string[]; // Array of file paths to read. … At least 1 item.
}): Promise<ToolResult<{ content: string }>>;
// Read the complete contents of a file from the file system as text. Handles various text encodings and provides detailed error messages if the file cannot be read. …
function read_text_file(args: {
  head?: number; // If provided, returns only the first N lines of the file
  path: string;
  tail?: number; // If provided, returns only the last N lines of the file
}): Promise<ToolResult<{ content: string }>>;
// Recursively search for files and directories matching a pattern. The patterns should be glob-style patterns that match paths relative to the working directory. …
function search_files(args: { excludePatterns?: string[]; path: string; pattern: string }): Promise<ToolResult<{ content: string }>>;
// Create a new file or completely overwrite an existing file with new content. Use with caution as it will overwrite existing files without warning. Handles text content with proper encoding. …
function write_file(args: { content: string; path: string }): Promise<ToolResult<{ content: string }>>;
}
