/**
 * Sources benchmark: what declaring command-line programs as servers (docs/adapters.md) and an
 * OpenAPI document as tools (docs/sources.md) adds to `mcpx ls` answered from the cache. Two
 * configurations side by side in one isolated HOME: one with no servers, one with three adapters
 * (git, ls, echo) and a 500-operation OpenAPI document in `paths.apis`. Each is refreshed once
 * (untimed), its daemon stopped, then `mcpx ls` runs `--runs` rounds, interleaved, after 3
 * untimed ones. Printed: the medians and their ratio (the target is at most 1.2×).
 *
 *     deno run -A bench/adapters.ts [--runs 20] [--operations 500] [--json]
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  ENTRY,
  formatTable,
  interruptible,
  makeIsolated,
  mcpxArgs,
  median,
  runDeno,
  teardown,
  timeRun,
  wholeNumber,
} from "./_shared.ts";

const flags = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "20" },
    operations: { type: "string", default: "500" },
    json: { type: "boolean", default: false },
  },
});
const runs = wholeNumber("--runs", flags.values.runs!, 1);
const operations = wholeNumber("--operations", flags.values.operations!, 1);
const iso = await makeIsolated("mcpx-bench-adapters-");
// The API server is mcpx itself under deno: it reads the same module cache.
iso.env.MCPX_SERVERS_ENV_PASSTHROUGH = "DENO_DIR";

const ADAPTERS = [
  {
    name: "gitx",
    command: "git",
    tools: [{
      name: "log",
      args: ["log", "--oneline"],
      params: { n: { type: "integer", flag: "-n" } },
    }],
  },
  {
    name: "lsx",
    command: "ls",
    tools: [{ name: "list", args: ["-1"], params: { all: { type: "boolean", flag: "-a" } } }],
  },
  {
    name: "say",
    command: "echo",
    tools: [{ name: "say", args: [], params: { text: { type: "string", positional: 0 } } }],
  },
];

/** An OpenAPI 3.0 document of `n` read operations, each with a path and a query parameter. */
function bigDocument(n: number): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    paths[`/things${i}/{id}`] = {
      get: {
        operationId: `getThing${i}`,
        summary: `Read thing ${i}`,
        parameters: [
          { name: "id", in: "path", required: true, schema: { type: "string" } },
          { name: "fields", in: "query", schema: { type: "string" } },
        ],
        responses: {
          "200": {
            description: "the thing",
            content: {
              "application/json": {
                schema: { type: "object", properties: { id: { type: "string" } } },
              },
            },
          },
        },
      },
    };
  }
  return {
    openapi: "3.0.3",
    info: { title: "big", version: "1" },
    servers: [{ url: "http://127.0.0.1:9/" }],
    paths,
  };
}

await interruptible(() => teardown(iso.root, iso.env), async (stopIfInterrupted, cleanup) => {
  const plain = join(iso.root, "plain");
  const adapters = join(iso.root, "adapters");
  await Deno.mkdir(plain);
  await Deno.mkdir(join(adapters, "decl"), { recursive: true });
  await Deno.writeTextFile(join(plain, ".mcpx.json"), JSON.stringify({ mcpServers: {} }));
  for (const a of ADAPTERS) {
    await Deno.writeTextFile(join(adapters, "decl", `${a.name}.json`), JSON.stringify(a));
  }
  await Deno.writeTextFile(join(adapters, "big.json"), JSON.stringify(bigDocument(operations)));
  await Deno.writeTextFile(
    join(adapters, ".mcpx.json"),
    JSON.stringify({ mcpServers: {}, paths: { adapters: "decl", apis: "big=./big.json" } }),
  );
  for (const dir of [plain, adapters]) {
    await runDeno(mcpxArgs(["refresh"]), dir, iso.env);
    await runDeno(mcpxArgs(["stop"]), dir, iso.env);
  }
  // The listing the rounds answer from: every source listed, the document with its 500 tools.
  const listed = JSON.parse(
    new TextDecoder().decode(
      (await new Deno.Command(Deno.execPath(), {
        args: mcpxArgs(["--json", "ls"]),
        cwd: adapters,
        env: iso.env,
        clearEnv: true,
        stdout: "piped",
        stderr: "null",
      }).output()).stdout,
    ),
  ) as { namespaces: { namespace: string; tools: number | null }[] };
  const tools = Object.fromEntries(listed.namespaces.map((n) => [n.namespace, n.tools]));
  if (tools.big !== operations || listed.namespaces.length !== 4) {
    throw new Error(`the configuration did not list as expected: ${JSON.stringify(tools)}`);
  }
  const times: Record<string, number[]> = { plain: [], adapters: [] };
  for (let round = -3; round < runs; round++) {
    stopIfInterrupted();
    for (const [label, dir] of [["plain", plain], ["adapters", adapters]] as const) {
      const ms = await timeRun(mcpxArgs(["ls"]), dir, iso.env);
      if (round >= 0) times[label].push(ms);
    }
  }
  const problems = await cleanup();
  const a = median(times.adapters), p = median(times.plain);
  const result = {
    entry: ENTRY,
    runs,
    operations,
    plainMs: p,
    adaptersMs: a,
    ratio: a / p,
    target: 1.2,
  };
  if (flags.values.json) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(`mcpx ls from the cache, ${runs} rounds interleaved (${ENTRY})\n`);
    console.log(formatTable([
      ["configuration", "median ms"],
      ["no servers", p.toFixed(1)],
      [`3 adapters + ${operations}-operation API`, a.toFixed(1)],
      ["ratio", `${(a / p).toFixed(3)}× (target ≤ 1.2×)`],
    ]));
  }
  for (const line of problems) console.error(line);
});
