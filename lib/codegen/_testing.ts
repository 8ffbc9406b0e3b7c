/** Shared by the tests of lib/codegen: the golden cases under tests/testdata/codegen. */
import type { ToolInfo } from "../mcp/types.ts";

/** The folder of golden cases: `<case>/tools.json` in, `<case>/expected.d.ts` out. */
export const CASES_DIR = new URL("../../tests/testdata/codegen/", import.meta.url).pathname;

/** The cases captured from real servers by tests/testdata/codegen/capture.ts. */
export const REAL_CASES = ["chrome_devtools", "everything", "filesystem", "memory"];

/** One golden case: a namespace and its tools, as `tools.json` holds them. */
export interface GoldenCase {
  name: string;
  namespace: string;
  description?: string;
  tools: ToolInfo[];
}

/** Every case, by name. */
export function loadCases(): GoldenCase[] {
  const names = [...Deno.readDirSync(CASES_DIR)]
    .filter((e) => e.isDirectory)
    .map((e) => e.name)
    .sort();
  return names.map((name) => ({ name, ...JSON.parse(readCase(name, "tools.json")) }));
}

/** The real-server cases, as the catalog takes them. */
export function realNamespaces(): { ns: string; description?: string; tools: ToolInfo[] }[] {
  return loadCases()
    .filter((c) => REAL_CASES.includes(c.name))
    .map((c) => ({ ns: c.namespace, description: c.description, tools: c.tools }));
}

/** A file of a case. */
export function readCase(name: string, file: string): string {
  return Deno.readTextFileSync(`${CASES_DIR}${name}/${file}`);
}

/** Runs `deno <args>` in `cwd`; resolves to its exit status and combined output. */
export async function deno(args: string[], cwd: string): Promise<{ ok: boolean; output: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { ok: out.success, output: text };
}
