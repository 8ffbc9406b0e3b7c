/**
 * Re-captures `tools.json` for the golden cases that come from real servers:
 * `deno run -A tests/testdata/codegen/capture.ts`. Each server is spawned with `node`, asked
 * `initialize` → `notifications/initialized` → `tools/list` over newline-delimited JSON-RPC on
 * stdio, and its tools are written sorted by name so the file is stable.
 */
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

async function listTools(server: Server): Promise<{ name: string }[]> {
  const child = new Deno.Command("node", {
    args: server.args,
    env: server.env,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const send = (msg: unknown) => writer.write(new TextEncoder().encode(JSON.stringify(msg) + "\n"));
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const reply = async (id: number): Promise<Record<string, unknown>> => {
    while (true) {
      const nl = buffer.indexOf("\n");
      if (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (!line.trim()) continue;
        const msg = JSON.parse(line);
        if (msg.id === id) {
          if (msg.error) throw new Error(`${server.case}: ${JSON.stringify(msg.error)}`);
          return msg.result;
        }
        continue;
      }
      const { value, done } = await lines.read();
      if (done) throw new Error(`${server.case}: server closed stdout`);
      buffer += value;
    }
  };
  await send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "mcpx-codegen-capture", version: "0" },
    },
  });
  await reply(1);
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  const tools: { name: string }[] = [];
  let cursor: string | undefined;
  let id = 2;
  do {
    await send({ jsonrpc: "2.0", id, method: "tools/list", params: cursor ? { cursor } : {} });
    const page = await reply(id++);
    tools.push(...page.tools as { name: string }[]);
    cursor = page.nextCursor as string | undefined;
  } while (cursor);
  await writer.close();
  await lines.cancel();
  child.kill();
  await child.status;
  return tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

for (const server of SERVERS) {
  const tools = await listTools(server);
  const dir = `${HERE}${server.case}`;
  await Deno.mkdir(dir, { recursive: true });
  const file = { namespace: server.case, description: server.description, tools };
  await Deno.writeTextFile(`${dir}/tools.json`, JSON.stringify(file, null, 2) + "\n");
  console.log(`${server.case}: ${tools.length} tools`);
}
