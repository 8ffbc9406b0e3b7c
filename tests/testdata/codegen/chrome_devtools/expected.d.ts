// Docs ending in … are cut short; `mcpx types chrome_devtools.<tool>` has them whole.
/**
 * drive a headless Chrome
 *
 * Parameters documented here once, for every tool that takes them:
 * - `includeSnapshot`: Whether to include a snapshot in the response. Default is false.
 * - `pageId`: Targets a specific page by ID.
 * - `timeout`: Maximum wait time in milliseconds. If set to 0, the default timeout will be used.
 * - `uid`: The uid of an element on the page from the page content snapshot
 */
declare namespace chrome_devtools {
// Clicks on the provided element
function click(args: {
  dblClick?: boolean; // Set to true for double clicks. Default is false.
  includeSnapshot?: boolean; pageId: number; uid: string;
}): Promise<ToolResult>;
// Closes the page by its index. The last open page cannot be closed.
function close_page(args: {
  pageId: number; // The ID of the page to close. Call list_pages to list pages.
}): Promise<ToolResult>;
// Drag an element onto another element
function drag(args: {
  from_uid: string; // The uid of the element to drag
  includeSnapshot?: boolean; pageId: number;
  to_uid: string; // The uid of the element to drop into
}): Promise<ToolResult>;
// Emulates various features on the target page. Each call replaces all emulation settings (except extraHttpHeaders), so pass all desired settings in a single call.
function emulate(args: {
  colorScheme?: "dark" | "light" | "auto"; // Emulate the dark or the light mode. Omit or set to "auto" to reset to the default.
  cpuThrottlingRate?: number; // Represents the CPU slowdown factor. Omit or set the rate to 1 to disable throttling. Range: 1 to 20.
  extraHttpHeaders?: string; // Extra HTTP headers as a JSON string object, e.g. {"X-Custom": "value", "Authorization": "Bearer token"}. …
  forcedColors?: "active" | "none" | "auto"; // Emulate the `forced-colors` CSS media feature. Omit or set to "auto" to reset to the default.
  geolocation?: string; // Geolocation (`<latitude>,<longitude>`) to emulate. Latitude between -90 and 90. …
  networkConditions?: "Offline" | "Slow 3G" | "Fast 3G" | "Slow 4G" | "Fast 4G"; // Throttle network. Omit to disable throttling.
  pageId: number;
  prefersContrast?: "more" | "less" | "custom" | "no-preference" | "auto"; // Emulate the `prefers-contrast` CSS media feature. Omit or set to "auto" to reset to the default.
  prefersReducedMotion?: "reduce" | "no-preference" | "auto"; // Emulate the `prefers-reduced-motion` CSS media feature. …
  userAgent?: string; // User agent to emulate. Omit or set to empty string to clear the user agent override.
  viewport?: string; // Emulate device viewports '<width>x<height>x<devicePixelRatio>[,mobile][,touch][,landscape]'. …
}): Promise<ToolResult>;
// Evaluate JavaScript inside the target page. The source can be provided inline or loaded from a local file. Returns the response as JSON, so returned values have to be JSON-serializable.
function evaluate_script(args: {
  args?: string[]; // An optional list of arguments (element uids from the page content snapshot) to pass to the function.
  dialogAction?: string; // Handle dialogs while execution. "accept", "dismiss", or string for response of window.prompt. …
  filePath?: string; // The absolute or relative path to a file to save the script output to. …
  format?: "function" | "script"; // How to interpret the source. "function" treats it as a function declaration and supports args. …
  function?: string; // JavaScript source to execute in the target page. Provide either this or sourcePath, but not both. …
  pageId: number;
  sourcePath?: string; // The absolute or relative path to a JavaScript file on the MCP server's local filesystem. …
  waitForStableDom?: boolean; // Whether to wait for the DOM to settle. Pass false if the script only reads data. Defaults to true.
}): Promise<ToolResult>;
// Type text into an input, text area or select an option from a <select> element.
function fill(args: {
  includeSnapshot?: boolean; pageId: number; uid: string;
  value: string; // The value to fill in. "true" or "false" for checkboxes and toggles, "true" for radio buttons.
}): Promise<ToolResult>;
// Fill out multiple form elements (inputs, selects, checkboxes, radios) at once. ALWAYS prefer this tool over multiple individual 'fill' or 'click' calls when interacting with forms. …
function fill_form(args: {
  // Elements from snapshot to fill out.
  elements: {
    uid: string; // The uid of the element to fill out
    value: string; // Value for the element. "true" or "false" for checkboxes and toggles, "true" for radio buttons.
  }[];
  includeSnapshot?: boolean; pageId: number;
}): Promise<ToolResult>;
// Gets a console message by its ID. You can get all messages by calling list_console_messages.
function get_console_message(args: {
  msgid: number; // The msgid of a console message on the page from the listed console messages
  pageId: number;
}): Promise<ToolResult>;
// Retrieve matched CSS rules, inline styles (element.style), inherited styles, custom properties, and cascade wrappers (@layer, @media, @container, @scope) for an element identified by its UID. …
function get_css_styles(args: {
  pageId: number;
  pageIdx?: number; // Page number to return (0-based). Defaults to 0 (the first page). Minimum: 0.
  pageSize?: number; // Maximum number of CSS rules to return per page. Defaults to 10. Greater than 0.
  uid: string; // The uid of the element on the page from the page content snapshot to inspect CSS styles for
}): Promise<ToolResult>;
// Gets a network request by an optional reqid, if omitted returns the currently selected request in the DevTools Network panel. …
function get_network_request(args: {
  pageId: number;
  reqid?: number; // The reqid of the network request. …
  requestFilePath?: string; // The absolute or relative path to a .network-request file to save the request body to. …
  responseFilePath?: string; // The absolute or relative path to a .network-response file to save the response body to. …
}): Promise<ToolResult>;
// If a browser dialog was opened, use this command to handle it
function handle_dialog(args: {
  action: "accept" | "dismiss"; // Whether to dismiss or accept the dialog
  pageId: number;
  promptText?: string; // Optional prompt text to enter into the dialog.
}): Promise<ToolResult>;
// Hover over the provided element
function hover(args: { includeSnapshot?: boolean; pageId: number; uid: string }): Promise<ToolResult>;
// Get Lighthouse scores, failing audits, and the DOM nodes they flag for accessibility, SEO, best practices, and agentic browsing. Full reports are saved to disk. This excludes performance. …
function lighthouse_audit(args: {
  device?: "desktop" | "mobile"; // Device to emulate. Default: "desktop".
  mode?: "navigation" | "snapshot"; // "navigation" reloads & audits. "snapshot" analyzes current state. Default: "navigation".
  outputDirPath?: string; // Directory for reports. If omitted, uses temporary files.
  pageId: number;
}): Promise<ToolResult>;
// List all console messages for the target page since the last navigation.
function list_console_messages(args: {
  includePreservedMessages?: boolean; // Set to true to return the preserved messages over the last 3 navigations.
  includeStackTraces?: boolean; // Set to true to include the stack trace for each message when available. Increases the response size.
  pageId: number;
  pageIdx?: number; // Page number to return (0-based). When omitted, returns the first page. Minimum: 0.
  pageSize?: number; // Maximum number of messages to return. When omitted, returns all messages. Greater than 0.
  serviceWorkerId?: string; // Filter messages to only return messages of the specified service worker.
  types?: ("log" | "debug" | "info" | "error" | "warn" | "dir" | "dirxml" | "table" | "trace" | "clear" | "startGroup" | "startGroupCollapsed" | "endGroup" | "assert" | "profile" | "profileEnd" | "count" | "timeEnd" | "verbose" | "issue")[]; // Filter messages to only return messages of the specified resource types. …
}): Promise<ToolResult>;
// Lists the most recent requests for the target page since the last navigation.
function list_network_requests(args: {
  includePreservedRequests?: boolean; // Set to true to return the preserved requests over the last 3 navigations.
  pageId: number;
  pageIdx?: number; // Page number to return (0-based). When omitted, returns the first page. Minimum: 0.
  pageSize?: number; // Maximum number of requests to return. When omitted, returns all requests. Greater than 0.
  resourceTypes?: ("document" | "stylesheet" | "image" | "media" | "font" | "script" | "texttrack" | "xhr" | "fetch" | "prefetch" | "eventsource" | "websocket" | "manifest" | "signedexchange" | "ping" | "cspviolationreport" | "preflight" | "fedcm" | "other")[]; // Filter requests to only return requests of the specified resource types. …
}): Promise<ToolResult>;
// Get a list of pages open in the browser.
function list_pages(): Promise<ToolResult>;
// Go to a URL, or back, forward, or reload. Use project URL if not specified otherwise.
function navigate_page(args: {
  handleBeforeUnload?: "accept" | "dismiss"; // Whether to auto accept or beforeunload dialogs triggered by this navigation. Default is accept.
  ignoreCache?: boolean; // Whether to ignore cache on reload.
  initScript?: string; // A JavaScript script to be executed on each new document before any other scripts for the next navigation.
  pageId: number; timeout?: number;
  type?: "url" | "back" | "forward" | "reload"; // Navigate the page by URL, back or forward in history, or reload.
  url?: string; // Target URL (only type=url)
}): Promise<ToolResult>;
// Open a new tab and load a URL. Use project URL if not specified otherwise.
function new_page(args: {
  background?: boolean; // Whether to open the page in the background without bringing it to the front. …
  isolatedContext?: string; // If specified, the page is created in an isolated browser context with the given name. …
  timeout?: number;
  url: string; // URL to load in a new page.
}): Promise<ToolResult>;
// Provides more detailed information on a specific Performance Insight of an insight set that was highlighted in the results of a trace recording.
function performance_analyze_insight(args: {
  insightName: string; // The name of the Insight you want more information on. …
  insightSetId: string; // The id for the specific insight set. Only use the ids given in the "Available insight sets" list.
  pageId: number;
}): Promise<ToolResult>;
// Start a performance trace on the target webpage. Use to find frontend performance issues, Core Web Vitals (LCP, INP, CLS), and improve page load speed.
function performance_start_trace(args: {
  autoStop?: boolean; // Determines if the trace recording should be automatically stopped. Default: true.
  filePath?: string; // The absolute file path, or a file path relative to the current working directory, to save the raw trace data. …
  ignoreCache?: boolean; // Whether to bypass the HTTP cache when reloading the page, to measure a cold page load. …
  pageId: number;
  reload?: boolean; // Determines if, once tracing has started, the target page should be automatically reloaded. … Default: true.
}): Promise<ToolResult>;
// Stop the active performance trace recording on the target webpage.
function performance_stop_trace(args: {
  filePath?: string; // The absolute file path, or a file path relative to the current working directory, to save the raw trace data. …
  pageId: number;
}): Promise<ToolResult>;
// Press a key or key combination. Use this when other input methods like fill() cannot be used (e.g., keyboard shortcuts, navigation keys, or special key combinations).
function press_key(args: {
  includeSnapshot?: boolean;
  key: string; // A key or a combination (e.g., "Enter", "Control+A", "Control++", "Control+Shift+R"). …
  pageId: number;
}): Promise<ToolResult>;
// Resizes the page's window so that the page has specified dimension
function resize_page(args: {
  height: number; // Page height. Greater than 0.
  pageId: number;
  width: number; // Page width. Greater than 0.
}): Promise<ToolResult>;
// Starts recording a screencast (video) of the target page.
function screencast_start(args: {
  filePath?: string; // Output file path (.mp4). Uses mkdtemp to generate a unique path if not provided.
  pageId: number;
}): Promise<ToolResult>;
// Stops the active screencast recording on the target page.
function screencast_stop(args: { pageId: number }): Promise<ToolResult>;
// Select a page as a context for future tool calls.
function select_page(args: {
  bringToFront?: boolean; // Whether to focus the page and bring it to the top.
  pageId: number; // The ID of the page to select. Call list_pages to get available pages.
}): Promise<ToolResult>;
// Capture a heap snapshot of the target page. Use to analyze the memory distribution of JavaScript objects and debug memory leaks.
function take_heapsnapshot(args: {
  filePath: string; // A path to a .heapsnapshot file to save the heapsnapshot to.
  pageId: number;
}): Promise<ToolResult>;
// Take a screenshot of the page or element.
function take_screenshot(args: {
  filePath?: string; // The absolute path, or a path relative to the current working directory, to save the screenshot to instead of attaching it to the response.
  format?: "png" | "jpeg" | "webp"; // Type of format to save the screenshot as. Default is "png"
  fullPage?: boolean; // If set to true takes a screenshot of the full page instead of the currently visible viewport. …
  pageId: number;
  quality?: number; // Compression quality for JPEG and WebP formats (0-100). … Range: 0 to 100.
  uid?: string; // The uid of an element on the page from the page content snapshot. …
}): Promise<ToolResult>;
// Take a text snapshot of the target page based on the a11y tree. The snapshot lists page elements along with a unique identifier (uid). Always use the latest snapshot. …
function take_snapshot(args: {
  filePath?: string; // The absolute path, or a path relative to the current working directory, to save the snapshot to instead of attaching it to the response.
  pageId: number;
  verbose?: boolean; // Whether to include all possible information available in the full a11y tree. Default is false.
}): Promise<ToolResult>;
// Type text using keyboard into a previously focused input
function type_text(args: {
  pageId: number;
  submitKey?: string; // Optional key to press after typing. E.g., "Enter", "Tab", "Escape"
  text: string; // The text to type
}): Promise<ToolResult>;
// Upload a file through a provided element.
function upload_file(args: {
  filePaths: string[]; // One or more files paths to upload. … At least 1 item.
  includeSnapshot?: boolean; pageId: number;
  uid: string; // The uid of the file input element or an element that will open file chooser on the page from the page content snapshot
}): Promise<ToolResult>;
// Wait for the specified text to appear on the selected page.
function wait_for(args: {
  pageId: number;
  text: string[]; // Non-empty list of texts. Resolves when any value appears on the page. At least 1 item.
  timeout?: number;
}): Promise<ToolResult>;
}
