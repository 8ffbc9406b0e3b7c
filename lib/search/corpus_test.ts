import assert from "node:assert/strict";
import { renderHits, search, type SearchDoc } from "./search.ts";

// The 27 tools of chrome-devtools-mcp as `mcpx ls` showed them in the walk, with their own
// descriptions; `browser` stands for a server-level config tag, the rest come from annotations.
const CHROME: [tool: string, tags: string[], description: string][] = [
  ["click", [], "Clicks on the provided element"],
  [
    "close_page",
    ["destructive"],
    "Closes the page by its index. The last open page cannot be closed.",
  ],
  ["drag", [], "Drag an element onto another element"],
  [
    "emulate",
    [],
    "Emulates various features on the target page. Each call replaces all emulation settings (except extraHttpHeaders), so pass all desired settings in a single call.",
  ],
  [
    "evaluate_script",
    [],
    "Evaluate JavaScript inside the target page. The source can be provided inline or loaded from a local file. Returns the response as JSON, so returned values have to be JSON-serializable.",
  ],
  ["fill", [], "Type text into an input, text area or select an option from a <select> element."],
  [
    "fill_form",
    [],
    "Fill out multiple form elements (inputs, selects, checkboxes, radios) at once. ALWAYS prefer this tool over multiple individual 'fill' or 'click' calls when interacting with forms. It is significantly faster, more reliable, and reduces turn count.",
  ],
  [
    "get_console_message",
    ["readOnly"],
    "Gets a console message by its ID. You can get all messages by calling list_console_messages.",
  ],
  [
    "get_network_request",
    [],
    "Gets a network request by an optional reqid, if omitted returns the currently selected request in the DevTools Network panel.",
  ],
  ["handle_dialog", [], "If a browser dialog was opened, use this command to handle it"],
  ["hover", [], "Hover over the provided element"],
  [
    "list_console_messages",
    ["readOnly"],
    "List all console messages for the target page since the last navigation.",
  ],
  [
    "list_network_requests",
    ["readOnly"],
    "Lists the most recent requests for the target page since the last navigation.",
  ],
  ["list_pages", ["readOnly"], "Get a list of pages open in the browser."],
  [
    "navigate_page",
    [],
    "Go to a URL, or back, forward, or reload. Use project URL if not specified otherwise.",
  ],
  ["new_page", [], "Open a new tab and load a URL. Use project URL if not specified otherwise."],
  [
    "performance_analyze_insight",
    ["readOnly"],
    "Provides more detailed information on a specific Performance Insight of an insight set that was highlighted in the results of a trace recording.",
  ],
  [
    "performance_start_trace",
    [],
    "Start a performance trace on the target webpage. Use to find frontend performance issues, Core Web Vitals (LCP, INP, CLS), and improve page load speed.",
  ],
  [
    "performance_stop_trace",
    [],
    "Stop the active performance trace recording on the target webpage.",
  ],
  [
    "press_key",
    [],
    "Press a key or key combination. Use this when other input methods like fill() cannot be used (e.g., keyboard shortcuts, navigation keys, or special key combinations).",
  ],
  [
    "resize_page",
    [],
    "Resizes the page's window so that the page has specified dimension",
  ],
  ["select_page", ["readOnly"], "Select a page as a context for future tool calls."],
  ["take_screenshot", [], "Take a screenshot of the page or element."],
  [
    "take_snapshot",
    [],
    `Take a text snapshot of the target page based on the a11y tree. The snapshot lists page elements along with a unique
identifier (uid). Always use the latest snapshot. Prefer taking a snapshot over taking a screenshot. The snapshot indicates the element selected
in the DevTools Elements panel (if any).`,
  ],
  ["type_text", [], "Type text using keyboard into a previously focused input"],
  ["upload_file", [], "Upload a file through a provided element."],
  ["wait_for", ["readOnly"], "Wait for the specified text to appear on the selected page."],
];

const DOCS: SearchDoc[] = CHROME.map(([tool, tags, description]) => ({
  namespace: "chrome_devtools",
  tool,
  fn: `chrome_devtools.${tool}`,
  description,
  tags: ["browser", ...tags],
}));

const top = (query: string, options = {}) =>
  search(DOCS, query, options).hits.map((hit) => hit.fn.replace("chrome_devtools.", ""));

// The reference prints these lines 123 characters wide; renderHits keeps to 120 by default.
const WALK = `FUNCTION                         DESCRIPTION
chrome_devtools.click            Clicks on the provided element
chrome_devtools.take_screenshot  Take a screenshot of the page or element.
chrome_devtools.fill_form        Fill out multiple form elements (inputs, selects, checkboxes, radios) at once. ALWAYS pre…
chrome_devtools.take_snapshot    Take a text snapshot of the target page based on the a11y tree. The snapshot lists page e…
`;

Deno.test("search() over chrome-devtools: `screenshot click` puts click and take_screenshot first", () => {
  assert.equal(DOCS.length, 27);
  const result = search(DOCS, "screenshot click");
  assert.equal(result.mode, "any");
  assert.deepEqual(top("screenshot click"), [
    "click",
    "take_screenshot",
    "fill_form",
    "take_snapshot",
  ]);
  assert.deepEqual(result.hits.map((hit) => hit.score), [100, 40, 10, 10]);
});

Deno.test("renderHits() over chrome-devtools reproduces the walk's table", () => {
  const { hits } = search(DOCS, "screenshot click");
  assert.equal(renderHits(hits, { width: 123 }), WALK);
  const lines = renderHits(hits).trimEnd().split("\n");
  assert.ok(lines.every((line) => [...line].length <= 120));
  assert.equal(
    lines[3],
    "chrome_devtools.fill_form        Fill out multiple form elements (inputs, selects, checkboxes, radios) at once. ALWAYS…",
  );
});

Deno.test("search() over chrome-devtools ranks names above prose", () => {
  assert.equal(top("navigate")[0], "navigate_page");
  assert.equal(top("form")[0], "fill_form");
  assert.equal(top("wait")[0], "wait_for");
  assert.equal(top("list pages")[0], "list_pages");
  assert.deepEqual(top("console messages"), ["get_console_message", "list_console_messages"]);
  assert.deepEqual(top("performance trace"), [
    "performance_stop_trace",
    "performance_start_trace",
    "performance_analyze_insight",
  ]);
  assert.deepEqual(top("snapshots"), ["take_snapshot"]);
  assert.deepEqual(top("page", { tags: ["readOnly"] }), [
    "list_pages",
    "select_page",
    "wait_for",
    "list_console_messages",
    "list_network_requests",
  ]);
  // A name word beats two description words: "typing" stems to the "typ" of type_text.
  assert.deepEqual(top("keyboard typing"), ["type_text"]);
});
