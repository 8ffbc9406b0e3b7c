import assert from "node:assert/strict";
import type { ToolInfo } from "../mcp/types.ts";
import { CASES_DIR, deno, loadCases, realNamespaces } from "./_testing.ts";
import { catalog } from "./catalog.ts";
import {
  DECLARATIONS_HEADER,
  namespaceDeclarations,
  planNamespace,
  sharedParameterDocs,
  TOOL_RESULT_DECL,
  toolSignature,
  typeExpression,
} from "./declarations.ts";

// `UPDATE_GOLDEN=1 deno test -A lib/codegen/` rewrites the expected files instead of comparing.
const UPDATE = Deno.env.get("UPDATE_GOLDEN") === "1";

function golden(path: string, actual: string): void {
  if (UPDATE) {
    Deno.writeTextFileSync(path, actual);
    return;
  }
  let expected: string;
  try {
    expected = Deno.readTextFileSync(path);
  } catch {
    throw new Error(`No golden file ${path}; run with UPDATE_GOLDEN=1 to write it`);
  }
  assert.equal(
    actual,
    expected,
    `${path} differs; run with UPDATE_GOLDEN=1 if the change is meant`,
  );
}

const CASES = loadCases();

// The golden files are what `mcpx types <ns>` prints: the brief form.
const brief = (c: { namespace: string; description?: string; tools: ToolInfo[] }) =>
  namespaceDeclarations(c.namespace, c.description, c.tools, { brief: true });

for (const c of CASES) {
  Deno.test(`namespaceDeclarations() matches the golden file for ${c.name}`, () => {
    golden(`${CASES_DIR}${c.name}/expected.d.ts`, brief(c));
  });
}

Deno.test("TOOL_RESULT_DECL matches tests/testdata/codegen/tool_result.d.ts", () => {
  // The golden .d.ts files are one program under `deno check tests/`; this file declares the
  // globals they use.
  golden(`${CASES_DIR}tool_result.d.ts`, TOOL_RESULT_DECL);
});

Deno.test("catalog() of the real servers at 2000 tokens matches its golden file", () => {
  golden(`${CASES_DIR}catalog_2000.expected.txt`, catalog(realNamespaces(), { budget: 2000 }));
});

// What a script would write against the real servers' declarations, and what must not compile.
const USAGE = `
const graph = await memory.read_graph();
const entityNames: string[] = graph.entities.map((e) => e.name);
const first: string | undefined = graph.relations[0]?.relationType;
const raw: unknown[] | undefined = graph.raw.content;
await chrome_devtools.click({ pageId: 1, uid: "1_3" });
// @ts-expect-error uid is required
await chrome_devtools.click({ pageId: 1 });
// @ts-expect-error networkConditions is a literal union
await chrome_devtools.emulate({ pageId: 1, networkConditions: "Slow 5G" });
await chrome_devtools.list_pages();
const text = await filesystem.read_text_file({ path: "/tmp/x", head: 3 });
const content: string = text.content;
await everything.get_annotated_message({ messageType: "debug" });
const weather = await everything.get_structured_content({ location: "Chicago" });
const celsius: number = weather.temperature;
const point: refs.Point_2 = { x: 1, y: 2 };
const tree: recursive.Node = { name: "a", children: [{ name: "b" }] };
await names.delete_({ class: "x", "a-b": "y" });
await collisions.fancy_name_3();
try {
  await everything.echo({ message: "hi" });
} catch (e) {
  if (e instanceof ToolError) console.log(e.server, e.tool, e.code, e.raw?.isError);
}
console.log(entityNames, first, raw, content, celsius, point, tree);
export {};
`;

Deno.test("generated declarations type-check and lint clean as one program, formatted when whole", async () => {
  const dir = await Deno.makeTempDir({ prefix: "mcpx-codegen-" });
  try {
    // The brief form (`mcpx types <ns>`) here, the whole one (`mcpx schema`) in whole/: each is
    // a program of its own with the script below, and the whole one is as `deno fmt` leaves it.
    await Deno.mkdir(`${dir}/whole`);
    const files = ["tool_result.d.ts"];
    for (const d of [dir, `${dir}/whole`]) {
      await Deno.writeTextFile(`${d}/tool_result.d.ts`, TOOL_RESULT_DECL);
      await Deno.writeTextFile(`${d}/usage.ts`, USAGE);
    }
    for (const c of CASES) {
      files.push(`${c.name}.d.ts`);
      await Deno.writeTextFile(`${dir}/${c.name}.d.ts`, brief(c));
      await Deno.writeTextFile(
        `${dir}/whole/${c.name}.d.ts`,
        namespaceDeclarations(c.namespace, c.description, c.tools),
      );
    }
    // A single tool's declaration and a catalog each stand alone: modules, so that their
    // namespaces do not merge with the ones above.
    const chrome = CASES.find((c) => c.name === "chrome_devtools")!;
    const signature = toolSignature("chrome_devtools", chrome.tools[0]);
    await Deno.writeTextFile(`${dir}/signature.ts`, `export {};\n${signature}`);
    const cat = catalog(realNamespaces(), { budget: 3000, bias: ["file"] });
    await Deno.writeTextFile(`${dir}/catalog.ts`, `export {};\n${cat}`);
    const all = [...files, "signature.ts", "catalog.ts", "usage.ts"];
    const check = await deno(["check", "--no-config", "--quiet", ...all], dir);
    assert.ok(check.ok, check.output);
    const whole = await deno(
      ["check", "--no-config", "--quiet", ...files, "usage.ts"],
      `${dir}/whole`,
    );
    assert.ok(whole.ok, whole.output);
    const fmt = await deno(
      ["fmt", "--no-config", "--line-width=100", "--check", ...files, "../signature.ts"],
      `${dir}/whole`,
    );
    assert.ok(fmt.ok, fmt.output);
    const lint = await deno(["lint", "--no-config", ...files], dir);
    assert.ok(lint.ok, lint.output);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("namespaceDeclarations() gives the same bytes whatever order the tools arrive in", () => {
  for (const c of CASES) {
    const forward = namespaceDeclarations(c.namespace, c.description, c.tools);
    const backward = namespaceDeclarations(c.namespace, c.description, [...c.tools].reverse());
    assert.equal(backward, forward, c.name);
    assert.equal(brief({ ...c, tools: [...c.tools].reverse() }), brief(c), c.name);
  }
});

// A tool whose description runs to several paragraphs, with a parameter that says too much.
const WORDY: ToolInfo = {
  name: "take_snapshot",
  description: "Takes a text snapshot of the page.\n\nThe snapshot lists elements with a uid. " +
    "Always use the latest one.",
  inputSchema: {
    type: "object",
    properties: {
      filePath: {
        type: "string",
        description: "Where to save the snapshot instead of attaching it to the response. " +
          "A path relative to the working directory, or absolute. If omitted, it is inline.",
      },
      verbose: { type: "boolean", description: "Everything in the a11y tree.", default: true },
    },
  },
};

Deno.test("namespaceDeclarations() brief: descriptions cut to their first paragraph, marked, and said where to find whole", () => {
  const out = namespaceDeclarations(
    "web",
    "a browser",
    [WORDY, { name: "list", inputSchema: {} }],
    {
      brief: true,
    },
  );
  assert.equal(
    out,
    "// Docs ending in … are cut short; `mcpx types web.<tool>` has them whole.\n" +
      "/** a browser */\ndeclare namespace web {\n" +
      "function list(args?: { [key: string]: unknown }): Promise<ToolResult>;\n" +
      "// Takes a text snapshot of the page. …\n" +
      "function take_snapshot(args?: {\n" +
      "  filePath?: string; // Where to save the snapshot instead of attaching it to the response. …\n" +
      "  verbose?: boolean; // Everything in the a11y tree. Default: true.\n" +
      "}): Promise<ToolResult>;\n}\n",
  );
  // `mcpx types <ns>.<tool>` (and `mcpx schema`) keep every word.
  const one = toolSignature("web", WORDY, { tools: [WORDY] });
  assert.ok(
    one.includes(" * The snapshot lists elements with a uid. Always use the latest one."),
    one,
  );
  assert.ok(one.includes("If omitted, it is inline."), one);
  const whole = namespaceDeclarations("web", "a browser", [WORDY]);
  assert.ok(whole.startsWith(DECLARATIONS_HEADER) && whole.includes("If omitted, it is inline."));
});

Deno.test("namespaceDeclarations() brief: no note when nothing is cut, and a tool with no arguments takes none", () => {
  const out = namespaceDeclarations("x", undefined, [{
    name: "ping",
    description: "Pings.",
    inputSchema: { type: "object", properties: {} },
  }], { brief: true });
  assert.equal(
    out,
    "declare namespace x {\n// Pings.\nfunction ping(): Promise<ToolResult>;\n}\n",
  );
});

Deno.test("namespaceDeclarations() brief: a default a cut sentence stated is noted again", () => {
  const out = namespaceDeclarations("x", undefined, [{
    name: "wait",
    inputSchema: {
      type: "object",
      properties: {
        ms: {
          type: "number",
          description:
            "How long to wait, in milliseconds, for the page to settle before giving up on it and failing. " +
            "Defaults to 500.",
          default: 500,
          minimum: 0,
        },
      },
    },
  }], { brief: true });
  assert.match(
    out,
    /ms\?: number; \/\/ How long to wait, in milliseconds, for the page to settle before giving up on it and failing\. … Default: 500\. Minimum: 0\.\n/,
  );
});

Deno.test("namespaceDeclarations() brief: one line per documented member, the others sharing lines, long types unbroken", () => {
  const values = Array.from({ length: 30 }, (_, i) => `value${i}`);
  const out = namespaceDeclarations("x", undefined, [{
    name: "class",
    description: "Does a thing.",
    inputSchema: {
      type: "object",
      required: ["a", "b"],
      properties: {
        a: { type: "string" },
        b: { type: "number" },
        c: { type: "boolean", description: "Old.", deprecated: true },
        d: { type: "array", items: { enum: values } },
        e: {
          type: "object",
          description: "Nested.",
          properties: { f: { type: "string", description: "Inner." }, g: { type: "number" } },
        },
        h: { anyOf: [{ type: "string" }, { type: "number" }] },
      },
    },
  }], { brief: true });
  assert.equal(
    out,
    "declare namespace x {\n" +
      '// Does a thing. Calls the tool "class".\n' +
      "function class_(args: {\n" +
      "  a: string; b: number;\n" +
      "  c?: boolean; // Old. @deprecated\n" +
      `  d?: (${values.map((v) => `"${v}"`).join(" | ")})[];\n` +
      "  // Nested.\n" +
      "  e?: {\n    f?: string; // Inner.\n    g?: number;\n  };\n" +
      "  h?: string | number;\n" +
      "}): Promise<ToolResult>;\n}\n",
  );
});

Deno.test("namespaceDeclarations() starts with the header and wraps tools in the namespace", () => {
  const out = namespaceDeclarations("fs", "files", [{
    name: "read",
    description: "Reads",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  }]);
  assert.equal(
    out,
    DECLARATIONS_HEADER + "\n" +
      "/** files */\ndeclare namespace fs {\n  /** Reads */\n" +
      "  function read(args: { path: string }): Promise<ToolResult>;\n}\n",
  );
  assert.equal(
    namespaceDeclarations("none", undefined, []),
    DECLARATIONS_HEADER + "\ndeclare namespace none {}\n",
  );
});

Deno.test("namespaceDeclarations() refuses a namespace that is not an identifier", () => {
  assert.throws(() => namespaceDeclarations("my-server", undefined, []), TypeError);
  assert.throws(() => namespaceDeclarations("class", undefined, []), TypeError);
  assert.throws(() => toolSignature("new", { name: "x", inputSchema: {} }), TypeError);
});

Deno.test("toolSignature() is the namespace's declaration of that one tool, every doc in place", () => {
  for (const c of CASES) {
    // The namespace's declarations, as they read with no parameter documented once above them.
    const whole = planNamespace(c.tools).tools.map((t) => t.declaration).join("\n\n");
    const printed = namespaceDeclarations(c.namespace, undefined, c.tools);
    const shared = sharedParameterDocs(c.tools);
    for (const tool of c.tools) {
      const one = toolSignature(c.namespace, tool, { tools: c.tools });
      assert.ok(one.startsWith(`declare namespace ${c.namespace} {\n`), one);
      const body = one.slice(one.indexOf("{\n") + 2, one.lastIndexOf("\n}\n"));
      for (const member of body.split("\n\n")) {
        // A type alias as printed; a function as it reads with every doc in place.
        const found = /^ {2}(\/\*\*[^]*?\*\/\n {2})?type /.test(member)
          ? printed.includes(member)
          : whole.includes(member);
        assert.ok(found, `${c.name}.${tool.name}: ${member}`);
      }
    }
    // Each shared doc is said once in the namespace's JSDoc, and at no function.
    for (const [name, doc] of shared) {
      assert.ok(printed.includes(`- \`${name}\`: ${doc}`), `${c.name}: ${name}`);
      assert.ok(!printed.includes(`/** ${doc} */ ${name}`), `${c.name}: ${name} doc repeated`);
      assert.ok(!printed.includes(`/** ${doc} */\n`), `${c.name}: ${name} doc repeated above`);
    }
  }
});

Deno.test("sharedParameterDocs() takes a text shared word for word by three tools or more", () => {
  const tool = (name: string, props: Record<string, string>) => ({
    name,
    inputSchema: {
      type: "object",
      properties: Object.fromEntries(
        Object.entries(props).map(([k, d]) => [k, { type: "string", description: d }]),
      ),
    },
  });
  const shared = sharedParameterDocs([
    tool("a", { page: "The page.", mode: "One way." }),
    tool("b", { page: "The page.", mode: "Another way." }),
    tool("c", { page: "The page.", mode: "One way.", id: "An id." }),
    tool("d", { mode: "One way.", id: "An id." }),
  ]);
  assert.deepEqual([...shared], [["page", "The page."], ["mode", "One way."]]);
});

Deno.test("toolSignature() carries the aliases the tool uses and no others", () => {
  const c = CASES.find((c) => c.name === "refs")!;
  const one = toolSignature("refs", c.tools.find((t) => t.name === "use_definitions")!, {
    tools: c.tools,
  });
  assert.equal(
    one,
    "declare namespace refs {\n  type Point = { lat: number; lon: number };\n\n" +
      "  /** draft-07 definitions; a Point that differs from the other tool's */\n" +
      "  function use_definitions(args: { at: Point }): Promise<ToolResult>;\n}\n",
  );
});

Deno.test("typeExpression() inlines references, for code that cannot declare aliases", () => {
  const schema = {
    type: "object",
    $defs: { P: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } },
    properties: { p: { $ref: "#/$defs/P" } },
  };
  assert.equal(typeExpression(schema), "{ p?: { x: number } }");
  assert.equal(typeExpression(undefined), "unknown");
});
