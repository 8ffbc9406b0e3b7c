import assert from "node:assert/strict";
import { McpxError } from "../errors.ts";
import { readDirectives } from "./directives.ts";
import { parseEnvFile, parseEnvPair } from "./env_vars.ts";
import { execModule, execSyntaxError } from "./plan.ts";

Deno.test("parseEnvPair() and parseEnvFile() read variables, and name every bad line", () => {
  assert.deepEqual(parseEnvPair("A=b=c"), ["A", "b=c"]);
  assert.deepEqual(parseEnvPair("EMPTY="), ["EMPTY", ""]);
  assert.throws(() => parseEnvPair("nope"), McpxError);
  assert.throws(() => parseEnvPair("1A=x"), /not a variable name/);
  assert.deepEqual(
    parseEnvFile(
      "# c\nexport A=1\nB = two words # note\nC=\"x\\ny\"\nD='$lit # not a comment'\n\n",
      "f",
    ),
    { A: "1", B: "two words", C: "x\ny", D: "$lit # not a comment" },
  );
  assert.throws(() => parseEnvFile("ok=1\nbad line\nE='open\n", "f"), (e: unknown) => {
    assert.ok(e instanceof McpxError);
    assert.match(e.message, /f:2: "bad line" is not KEY=VALUE; f:3: the ' quote is never closed/);
    return true;
  });
});

Deno.test("readDirectives() reads `// mcpx:` lines in the opening comments only", () => {
  assert.deepEqual(
    readDirectives(
      "#!/x\n// Doc.\n// mcpx: runtime=node timeout=30s\ncode();\n// mcpx: runtime=bun\n",
      "s.ts",
    ),
    { runtime: "node", timeoutMs: 30_000 },
  );
  assert.throws(
    () => readDirectives("// mcpx: runtime=python\n", "s.ts"),
    /s\.ts:1: .*names no runtime/,
  );
  assert.throws(() => readDirectives("// mcpx: colour=red\n", "s.ts"), /not a directive/);
});

Deno.test("execModule() returns an expression, wraps statements, keeps modules as written", () => {
  assert.equal(
    execModule("1 + 1").text,
    "export default async function () { return (\n1 + 1\n); }\n",
  );
  assert.equal(
    execModule("const a = 1; return a").text,
    "export default async function () {\nconst a = 1; return a\n}\n",
  );
  const mod = 'import x from "./y.ts";\nconsole.log(x);';
  assert.deepEqual(execModule(mod), { text: mod, lineOffset: 0 });
});

Deno.test("execSyntaxError() refuses a program that would close its wrapper, and only that", () => {
  assert.equal(execSyntaxError("}{"), "SyntaxError: Unexpected token '{'");
  assert.match(execSyntaxError("return 1 } export const y = 2; {") ?? "", /^SyntaxError: /);
  assert.match(execSyntaxError("enum A { x }\n}{") ?? "", /^SyntaxError: /);
  for (
    const fine of [
      "1 + 1",
      "const a: number[] = [1]; return a",
      "enum A { x }\nreturn A.x",
      "const s = '}{'; // }\nreturn s",
      "return import.meta.url",
      "await fixture.echo({ text: `}${1}{` })",
      'import x from "./y.ts";\n}{', // a module: the runtime reports it, with its place
      "const = 1", // not even the wrapped text parses: the runtime names the line
    ]
  ) assert.equal(execSyntaxError(fine), undefined, fine);
});

Deno.test("rebaseImports() points an exec program's relative imports at the caller's folder", async () => {
  const { rebaseImports } = await import("./plan.ts");
  const code = [
    'import x from "./helper.ts";',
    "import { y } from '../up/y.ts';",
    'import tools from "./mcpx-client.ts";',
    'const z = await import("./z.ts");',
    'import "./side.ts";',
    'const s = "./not-an-import.ts";',
  ].join("\n");
  assert.equal(
    rebaseImports(code, "/work/here"),
    [
      'import x from "file:///work/here/helper.ts";',
      "import { y } from 'file:///work/up/y.ts';",
      'import tools from "./mcpx-client.ts";',
      'const z = await import("file:///work/here/z.ts");',
      'import "file:///work/here/side.ts";',
      'const s = "./not-an-import.ts";',
    ].join("\n"),
  );
});
