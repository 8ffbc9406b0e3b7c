/**
 * Re-captures `tools.json` for the golden cases that come from real servers:
 * `deno run -A tests/testdata/codegen/capture.ts`. Each server is spawned with `node`, asked
 * `initialize` → `notifications/initialized` → `tools/list` over newline-delimited JSON-RPC on
 * stdio, and its tools are written sorted by name so the file is stable.
 */
import { rawToolsList } from "../../fixtures/raw_tools_list.ts";

const HERE = new URL(".", import.meta.url).pathname;
const NPM = new URL("../../npm/node_modules/", import.meta.url).pathname;

interface Server {
  /** The golden case directory. */
  case: string;
  /** What `mcpx ls` would show for the namespace; kept beside the tools. */
  description: string;
  args: string[];
  env?: Record<string, string>;
}

const SERVERS: Server[] = [
  {
    case: "everything",
    description: "MCP reference server exercising every protocol feature",
    args: [`${NPM}@modelcontextprotocol/server-everything/dist/index.js`],
  },
  {
    case: "filesystem",
    description: "read and write files under allowed directories",
    args: [`${NPM}@modelcontextprotocol/server-filesystem/dist/index.js`, "/tmp"],
  },
  {
    case: "memory",
    description: "a knowledge graph kept between sessions",
    args: [`${NPM}@modelcontextprotocol/server-memory/dist/index.js`],
    env: { MEMORY_FILE_PATH: "/tmp/mcpx-codegen-capture-memory.jsonl" },
  },
  {
    case: "chrome_devtools",
    description: "drive a headless Chrome",
    args: [
      `${NPM}chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js`,
      "--headless",
      "--isolated",
      "--executablePath",
      "/usr/bin/chromium",
      "--no-usage-statistics",
    ],
    env: { CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS: "1" },
  },
];

function listTools(server: Server): Promise<{ name: string }[]> {
  return rawToolsList(server.case, "node", { args: server.args, env: server.env });
}

for (const server of SERVERS) {
  const tools = await listTools(server);
  const dir = `${HERE}${server.case}`;
  await Deno.mkdir(dir, { recursive: true });
  const file = { namespace: server.case, description: server.description, tools };
  await Deno.writeTextFile(`${dir}/tools.json`, JSON.stringify(file, null, 2) + "\n");
  console.log(`${server.case}: ${tools.length} tools`);
}
