/**
 * What an agent reads before its first call, in bytes: the walk AGENTS.md teaches (AGENTS.md, then
 * `--json ls`, `--json search <words>`, `--json types <ns.tool>`) against four real servers
 * (server-everything, -filesystem, -memory and chrome-devtools-mcp, from tests/npm), beside the
 * servers' own tool lists minified (what an MCP host would put in the context instead), and the
 * minified `tools/list` of `mcpx serve` in its default code mode and with `--tools all`.
 *
 *     deno run -A bench/agent_walk.ts [--json] [--query "list files folder"] [--tool filesystem.list_directory]
 *
 * Bytes, not time: the figures do not depend on the machine's load.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { fourServers, WALK_QUERY, WALK_TOOL, walkSteps } from "../tests/fixtures/walk.ts";
import {
  formatTable,
  interruptible,
  makeIsolated,
  mcpxArgs,
  runDeno,
  teardown,
} from "./_shared.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    json: { type: "boolean", default: false },
    query: { type: "string", default: WALK_QUERY.join(" ") },
    tool: { type: "string", default: WALK_TOOL },
  },
});

const bytes = (text: string) => new TextEncoder().encode(text).length;

/** The minified `tools/list` result `mcpx serve` answers over stdio, with `extra` flags. */
async function servedList(cwd: string, env: Record<string, string>, extra: string[]) {
  const child = new Deno.Command(Deno.execPath(), {
    args: mcpxArgs(["serve", ...extra]),
    cwd,
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const send = (m: unknown) => writer.write(new TextEncoder().encode(JSON.stringify(m) + "\n"));
  await send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "bench", version: "1" },
    },
  });
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  let result: { tools: unknown[] } | undefined;
  while (!result) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`mcpx serve ${extra.join(" ")} ended before tools/list: ${seen}`);
    seen += value;
    for (const line of seen.split("\n")) {
      if (line.includes('"id":2')) result = JSON.parse(line).result;
    }
  }
  await writer.close();
  await reader.cancel();
  await child.status;
  return { tools: result.tools.length, bytes: bytes(JSON.stringify(result)) };
}

async function main() {
  const isolated = await makeIsolated("mcpx-bench-walk-");
  await interruptible(() => teardown(isolated.root, isolated.env), async () => {
    const project = join(isolated.root, "work");
    await Deno.mkdir(project, { recursive: true });
    await Deno.writeTextFile(join(project, "notes.txt"), "a file to list\n");
    await Deno.writeTextFile(
      join(project, ".mcpx.json"),
      JSON.stringify(fourServers(project, join(isolated.root, "memory.jsonl"))),
    );
    const env = isolated.env;
    await runDeno(mcpxArgs(["refresh"]), project, env);
    const steps: [string, string][] = [];
    for (const args of walkSteps(values.query.split(" "), values.tool)) {
      steps.push([`mcpx ${args.join(" ")}`, await runDeno(mcpxArgs(args), project, env)]);
    }
    const total = steps.reduce((n, [, out]) => n + bytes(out), 0);
    const schema = JSON.parse(
      await runDeno(mcpxArgs(["--json", "schema", "--format", "mcp"]), project, env),
    );
    const own = bytes(JSON.stringify(schema.document));
    const ownTools = schema.document.tools.length;
    const light = await servedList(project, env, []);
    const all = await servedList(project, env, ["--tools", "all"]);
    const figures = {
      steps: Object.fromEntries(steps.map(([name, out]) => [name, bytes(out)])),
      walk: total,
      servers: { tools: ownTools, bytes: own },
      serve: { default: light, all },
    };
    if (values.json) {
      console.log(JSON.stringify(figures, null, 2));
      return;
    }
    const pct = (n: number) => `${(100 * n / own).toFixed(1)}%`;
    console.log(
      `The agent's walk before its first call, four real servers (${ownTools} tools), bytes of stdout\n`,
    );
    console.log(formatTable([
      ["step", "bytes", "of the servers' own lists"],
      ...steps.map(([name, out]) => [name, String(bytes(out)), pct(bytes(out))]),
      ["walk, in all", String(total), pct(total)],
      [`the servers' own tool lists (minified)`, String(own), "100%"],
      [
        `mcpx serve tools/list (${light.tools} tools, minified)`,
        String(light.bytes),
        pct(light.bytes),
      ],
      [
        `mcpx serve --tools all tools/list (${all.tools} tools, minified)`,
        String(all.bytes),
        pct(all.bytes),
      ],
    ]));
  });
}

await main();
