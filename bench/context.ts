/**
 * Context benchmark: what an agent reads before it writes a line, in bytes and in tokens
 * (`estimateTokens`: UTF-8 bytes / 4, rounded up), from real mcpx processes over the schema cache
 * of four real servers (server-everything, server-filesystem, server-memory, chrome-devtools-mcp).
 *
 *     deno run -A bench/context.ts [--json]
 *
 * 1. The walk: `mcpx agents-md` (AGENTS.md as mcpx prints it), `mcpx ls`, `mcpx types <ns>` for
 *    chrome_devtools and everything, and the walk's total (AGENTS.md + ls + types chrome_devtools).
 *    Set against mcporter's 3,458 B for server-everything's 13 tools, a figure quoted from mcpx
 *    issue 11 (not measured here), and the aims the issue sets.
 * 2. The whole forms beside the brief one: `mcpx schema --format typescript <ns>` (every word the
 *    servers wrote) and the sum of `mcpx types <ns>.<tool>` over every tool.
 * 3. Other cut limits: `namespaceDeclarations` run in this process on the tools `mcpx schema
 *    --format mcp` prints, at limits other than mcpx's; the row at mcpx's own limits must equal
 *    what `mcpx types` printed, which checks that the others are comparable.
 *
 * The cache is filled once by `mcpx refresh`, and its daemon stopped before anything is read.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { estimateTokens } from "../lib/codegen/catalog.ts";
import {
  namespaceDeclarations,
  PARAM_DOC_LIMIT,
  TOOL_DOC_LIMIT,
} from "../lib/codegen/declarations.ts";
import type { ToolInfo } from "../lib/mcp/types.ts";
import { npmServer } from "../tests/_helpers.ts";
import { chromeServerConfig } from "../tests/fixtures/chrome.ts";
import {
  ENTRY,
  formatTable,
  interruptible,
  makeIsolated,
  mcpxArgs,
  runDeno,
  teardown,
} from "./_shared.ts";

/** Quoted from mcpx issue 11: mcporter's declarations of server-everything's 13 tools. */
const MCPORTER_EVERYTHING_BYTES = 3458;
/** The aims issue 11 sets. */
const AIM = { chromeTypesBytes: 12_000, walkTokens: 4000 };
/** The cut limits (tool, parameter) tried beside mcpx's own; `Infinity`: the first paragraph, whole. */
const LIMITS: [number, number][] = [
  [Infinity, Infinity],
  [200, 200],
  [200, 100],
  [200, 60],
  [120, 60],
  [120, 40],
];
const NAMESPACES = ["chrome_devtools", "everything", "filesystem", "memory"];

const bytes = (text: string) => new TextEncoder().encode(text).length;

async function main(): Promise<void> {
  const { values } = parseArgs({ args: Deno.args, options: { json: { type: "boolean" } } });
  const isolated = await makeIsolated("mcpx-bench-context-");
  const project = join(isolated.root, "project");
  const files = join(isolated.root, "files");
  await Deno.mkdir(project);
  await Deno.mkdir(files);
  await Deno.writeTextFile(
    join(project, ".mcpx.json"),
    JSON.stringify({
      mcpServers: {
        everything: npmServer("server-everything"),
        filesystem: npmServer("server-filesystem", [files]),
        memory: {
          ...npmServer("server-memory"),
          env: { MEMORY_FILE_PATH: join(isolated.root, "memory.jsonl") },
        },
        "chrome-devtools": chromeServerConfig(),
      },
    }),
  );
  const mcpx = (args: string[]) => runDeno(mcpxArgs(args), project, isolated.env);

  await interruptible(() => teardown(isolated.root, isolated.env), async (stop, cleanup) => {
    const problems: string[] = [];
    await mcpx(["refresh"]);
    await mcpx(["stop"]);
    stop();

    const agents = await mcpx(["agents-md"]);
    const ls = await mcpx(["ls"]);
    const types: Record<string, string> = {};
    const whole: Record<string, string> = {};
    const oneByOne: Record<string, number> = {};
    const tools: Record<string, ToolInfo[]> = {};
    for (const ns of NAMESPACES) {
      types[ns] = await mcpx(["types", ns]);
      whole[ns] = await mcpx(["schema", "--format", "typescript", ns]);
      const doc = JSON.parse(await mcpx(["--json", "schema", "--format", "mcp", ns])) as {
        document: { tools: ToolInfo[] };
      };
      tools[ns] = doc.document.tools.map((t) => ({ ...t, name: t.name.slice(ns.length + 1) }));
      oneByOne[ns] = 0;
      for (const t of tools[ns]) oneByOne[ns] += bytes(await mcpx(["types", `${ns}.${t.name}`]));
      stop();
    }
    const walkBytes = bytes(agents) + bytes(ls) + bytes(types.chrome_devtools);

    // The same namespaces rendered here, at other limits.
    const listed = JSON.parse(await mcpx(["--json", "ls"])) as {
      namespaces: { namespace: string; description?: string }[];
    };
    const description = (ns: string) =>
      listed.namespaces.find((n) => n.namespace === ns)?.description;
    const sweep = LIMITS.map(([tool, param]) => {
      const at = (ns: string) =>
        bytes(namespaceDeclarations(ns, description(ns), tools[ns], { brief: { tool, param } }));
      return { tool, param, chrome: at("chrome_devtools"), everything: at("everything") };
    });
    const own = sweep.find((r) => r.tool === TOOL_DOC_LIMIT && r.param === PARAM_DOC_LIMIT);
    for (const ns of ["chrome_devtools", "everything"] as const) {
      const printed = bytes(types[ns]);
      const here = ns === "chrome_devtools" ? own?.chrome : own?.everything;
      if (here !== printed) {
        problems.push(
          `${ns}: rendered here at mcpx's limits ${here} B, \`mcpx types\` ${printed} B`,
        );
      }
      if (printed > bytes(whole[ns])) {
        problems.push(`${ns}: the brief form is longer than the whole`);
      }
    }
    if (!types.chrome_devtools.startsWith("// Docs ending in … are cut short")) {
      problems.push("`mcpx types chrome_devtools` does not say where cut docs are whole");
    }
    problems.push(...await cleanup());

    const figures = {
      agentsMdBytes: bytes(agents),
      lsBytes: bytes(ls),
      typesBytes: Object.fromEntries(NAMESPACES.map((ns) => [ns, bytes(types[ns])])),
      wholeBytes: Object.fromEntries(NAMESPACES.map((ns) => [ns, bytes(whole[ns])])),
      oneToolSumBytes: oneByOne,
      walkBytes,
      walkTokens: estimateTokens(agents) + estimateTokens(ls) +
        estimateTokens(types.chrome_devtools),
      mcporterEverythingBytes: MCPORTER_EVERYTHING_BYTES,
      limits: { tool: TOOL_DOC_LIMIT, param: PARAM_DOC_LIMIT },
      sweep,
      problems,
    };
    report(values.json === true, figures);
    if (problems.length) Deno.exitCode = 1;
  });
}

function report(json: boolean, f: {
  agentsMdBytes: number;
  lsBytes: number;
  typesBytes: Record<string, number>;
  wholeBytes: Record<string, number>;
  oneToolSumBytes: Record<string, number>;
  walkBytes: number;
  walkTokens: number;
  mcporterEverythingBytes: number;
  limits: { tool: number; param: number };
  sweep: { tool: number; param: number; chrome: number; everything: number }[];
  problems: string[];
}): void {
  if (json) {
    console.log(
      JSON.stringify(
        {
          ...f,
          sweep: f.sweep.map((r) => ({ ...r, tool: String(r.tool), param: String(r.param) })),
        },
        null,
        2,
      ),
    );
    return;
  }
  const tok = (b: number) => String(Math.ceil(b / 4));
  const met = (ok: boolean) => (ok ? "met" : "MISSED");
  const chrome = f.typesBytes.chrome_devtools;
  const everything = f.typesBytes.everything;
  console.log(
    `deno ${Deno.version.deno}, ${ENTRY}; tokens = ceil(UTF-8 bytes / 4); mcpx cuts a tool's ` +
      `description at ${f.limits.tool} characters, a parameter's at ${f.limits.param}`,
  );
  console.log(`\n1. the walk (what an agent reads before it writes a line)`);
  console.log(formatTable([
    ["what", "bytes", "tokens", "aim"],
    ["mcpx agents-md (AGENTS.md)", String(f.agentsMdBytes), tok(f.agentsMdBytes), ""],
    ["mcpx ls (4 servers)", String(f.lsBytes), tok(f.lsBytes), ""],
    [
      "mcpx types chrome_devtools",
      String(chrome),
      tok(chrome),
      `<= ${AIM.chromeTypesBytes} B: ${met(chrome <= AIM.chromeTypesBytes)}`,
    ],
    [
      "walk: agents-md + ls + types chrome_devtools",
      String(f.walkBytes),
      String(f.walkTokens),
      `< ${AIM.walkTokens} tokens: ${met(f.walkTokens < AIM.walkTokens)}`,
    ],
    [
      "mcpx types everything",
      String(everything),
      tok(everything),
      `<= mcporter: ${met(everything <= f.mcporterEverythingBytes)}`,
    ],
    [
      "mcporter, server-everything (quoted from issue 11, not measured)",
      String(f.mcporterEverythingBytes),
      tok(f.mcporterEverythingBytes),
      "",
    ],
  ]));
  console.log(`\n2. mcpx types <ns> (brief) vs the whole declarations`);
  console.log(formatTable([
    ["namespace", "types_ns", "schema_typescript", "sum_types_ns.tool", ""],
    ...Object.keys(f.typesBytes).map((ns) => [
      ns,
      String(f.typesBytes[ns]),
      String(f.wholeBytes[ns]),
      String(f.oneToolSumBytes[ns]),
      "",
    ]),
  ]));
  console.log(
    `\n3. other cut limits (tool, parameter; paragraph: the first paragraph however long), ` +
      `rendered in this process from the same cache; bytes of mcpx types <ns>`,
  );
  console.log(formatTable([
    ["limits", "chrome_devtools", "everything", ""],
    ...f.sweep.map((r) => [
      `${r.tool === Infinity ? "paragraph" : r.tool}, ${
        r.param === Infinity ? "paragraph" : r.param
      }${r.tool === f.limits.tool && r.param === f.limits.param ? " (mcpx)" : ""}`,
      String(r.chrome),
      String(r.everything),
      "",
    ]),
  ]));
  for (const p of f.problems) console.log(`problem: ${p}`);
}

await main();
