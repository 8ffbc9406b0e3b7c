import assert from "node:assert/strict";
import { join } from "node:path";
import {
  addDeclared,
  builtinFills,
  declaredPlaceholder,
  DEFAULT_TEMPLATE,
  expandTemplate,
  layeredSource,
  naturalCompare,
  type Placeholder,
  readSource,
} from "./template.ts";

const opts = { repeat: [] as string[], origin: "--launcher" };

function fills(extra: Record<string, string | Placeholder> = {}): Map<string, Placeholder> {
  const map = builtinFills({ script: "/w/s.ts", capture: true });
  for (const [k, v] of Object.entries(extra)) {
    map.set(k, typeof v === "string" ? { params: [], body: v, scan: true, origin: "test" } : v);
  }
  return map;
}

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as Error).message;
  }
  assert.fail("expected a refusal");
}

Deno.test("the default template fills every hole once, the entry braced", () => {
  const out = expandTemplate(DEFAULT_TEMPLATE, fills(), opts);
  assert.doesNotMatch(
    out,
    /@(header|globals|console|before|prefix|import|entry|onSuccess|onError|suffix)\b/,
  );
  assert.match(out, /\{\n {2}result\.value = await __mcpx\.entry\(__mcpxModule\);\n\}/);
  assert.match(out, /import\("file:\/\/\/w\/s\.ts"\)/);
  // It parses as a module body.
  new Function(`return async () => {${out.replace("// @ts-nocheck", "")}}`);
});

Deno.test("a transposed placeholder is a near miss, named with what it is close to", () => {
  const message = refusal(() => expandTemplate("@globals\n@entyr\n", fills(), opts));
  assert.equal(message, 'Unknown placeholder "@entyr" in --launcher: did you mean "@entry"?');
  // Far from every name (a decorator, an address), it is left alone.
  assert.equal(
    expandTemplate("@Component\nx@example.com", new Map(), opts),
    "@Component\nx@example.com",
  );
});

Deno.test("a cycle is reported by the path that closed it", () => {
  const f = fills({ a: "@b", b: "@c", c: "@a" });
  assert.equal(
    refusal(() => expandTemplate("@a", f, opts)),
    "Placeholder cycle: @a → @b → @c → @a",
  );
  const hooks = builtinFills({
    script: "/w/s.ts",
    capture: true,
    prefix: "@suffix",
    suffix: "@prefix",
  });
  // One loop, reported once: not again from its other end, nor as the repeats it causes.
  assert.equal(
    refusal(() => expandTemplate(DEFAULT_TEMPLATE, hooks, opts)),
    "Placeholder cycle: @prefix → @suffix → @prefix",
  );
  // Two loops are two problems; a repeat of a placeholder in no loop is still one.
  const two = fills({ a: "@b", b: "@a", c: "@d", d: "@c", e: "1" });
  assert.equal(
    refusal(() => expandTemplate("@a\n@c\n@e\n@e", two, opts)),
    '3 problems in the launcher: Placeholder cycle: @a → @b → @a; Placeholder cycle: @c → @d → @c; Placeholder "@e" resolves more than once (in --launcher); name it in plumbing.launcherPlaceholderRepeat to allow that',
  );
});

Deno.test("a placeholder resolving twice is refused unless permitted; a call with arguments may repeat", () => {
  const f = fills({ twice: "@entry\n@entry" });
  assert.match(
    refusal(() => expandTemplate("@twice", f, opts)),
    /"@entry" resolves more than once/,
  );
  const allowed = expandTemplate("@twice", f, { ...opts, repeat: ["entry"] });
  assert.equal(allowed.match(/__mcpx\.entry/g)?.length, 2);
  // Through a fill: --suffix ending in @prefix runs the prefix again, which is a repeat.
  const again = builtinFills({
    script: "/w/s.ts",
    capture: true,
    prefix: "p();",
    suffix: "@prefix",
  });
  assert.match(
    refusal(() => expandTemplate(DEFAULT_TEMPLATE, again, opts)),
    /"@prefix" resolves more than once/,
  );
  assert.match(
    expandTemplate(DEFAULT_TEMPLATE, again, { ...opts, repeat: ["prefix"] }),
    /p\(\);[\s\S]*p\(\);/,
  );
});

Deno.test("placeholders take arguments: names, positions and @args, bound inside the body only", () => {
  const timed: Placeholder = {
    params: ["body", "label"],
    body: "{ const t = 0; @body; log(@label, @2, [@args]); }",
    scan: true,
    origin: "timed.ts",
  };
  const f = fills({ timed, step: "step();" });
  const out = expandTemplate('@timed(step, "one")\n@timed(x(), "two")\n@label', f, opts);
  assert.equal(
    out,
    '{ const t = 0; step();; log("one", "one", [step();, "one"]); }\n' +
      '{ const t = 0; x(); log("two", "two", [x(), "two"]); }\n@label',
  );
});

Deno.test("a file declares its placeholder by comment, exported constant or file name", () => {
  const comment = declaredPlaceholder(
    "/p/a.ts",
    "// @mcpx:placeholder timed(body, label)\n{ @body }\n",
  );
  assert.equal(comment.name, "timed");
  assert.deepEqual(comment.placeholder.params, ["body", "label"]);
  assert.equal(comment.placeholder.body, "{ @body }");
  const exported = declaredPlaceholder(
    "/p/b.ts",
    'export const MCPX_PLACEHOLDER = "wrap(x)";\nbefore(); @x; after();\n',
  );
  assert.equal(exported.name, "wrap");
  assert.deepEqual(exported.placeholder.params, ["x"]);
  assert.equal(exported.placeholder.body, "before(); @x; after();");
  assert.equal(declaredPlaceholder("/p/hello.js", "hi();\n").name, "hello");
});

Deno.test("declared placeholders: shadowing a built-in and two claims on one name are refused", () => {
  const dir = Deno.makeTempDirSync();
  try {
    Deno.writeTextFileSync(join(dir, "entry.ts"), "boom();");
    Deno.writeTextFileSync(join(dir, "a.ts"), "// @mcpx:placeholder same\n1");
    Deno.writeTextFileSync(join(dir, "b.ts"), "// @mcpx:placeholder same\n2");
    const message = refusal(() => addDeclared(fills(), [dir], "/"));
    assert.match(message, /declares @entry, which is built in: a placeholder cannot shadow it/);
    assert.match(message, /@same is declared twice/);
    Deno.removeSync(join(dir, "entry.ts"));
    Deno.removeSync(join(dir, "b.ts"));
    const f = fills();
    addDeclared(f, [dir], "/");
    assert.equal(expandTemplate("@same", f, opts), "1");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a source may be text, a file, or a folder in natural order; @text: and @file: force it", () => {
  const dir = Deno.makeTempDirSync();
  try {
    Deno.writeTextFileSync(join(dir, "10-b.js"), "b();");
    Deno.writeTextFileSync(join(dir, "9-a.js"), "a();");
    const folder = readSource(dir, "--prefix", "/", true);
    assert.equal(folder.text, `// ${dir}/9-a.js\na();\n// ${dir}/10-b.js\nb();`);
    assert.equal(readSource("x();", "--prefix", dir, true).text, "x();");
    assert.equal(readSource("9-a.js", "--prefix", dir, true).text, `// ${dir}/9-a.js\na();`);
    assert.equal(readSource("@text:9-a.js", "--prefix", dir, true).text, "9-a.js");
    assert.equal(readSource("9-a.js", "--prefix", dir, false).text, "9-a.js");
    assert.match(
      refusal(() => readSource("@file:nothere.js", "--suffix", dir, true)),
      /^Cannot read --suffix "@file:nothere\.js": /,
    );
    assert.deepEqual(["10", "9", "1"].sort(naturalCompare), ["1", "9", "10"]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("hooks layer: a `-` line, or a file's null, splices in the layers below", async () => {
  const { resolveSettings } = await import("../settings/resolve.ts");
  const settings = resolveSettings({
    env: {},
    files: [
      { path: "/far.json", data: { script: { prefix: "far();" } } },
      { path: "/near.json", data: { script: { prefix: [null, "near();"] } } },
    ],
    flags: [{ key: "script.prefix", text: "flag();\n-", spelling: "--prefix" }],
  });
  const d = settings.describe("script.prefix");
  const layers = [d.text, ...d.overrode.map((o) => o.text)];
  assert.equal(layeredSource(layers, "--prefix", "/", false), "flag();\nfar();\nnear();");
  // Without a splice, the nearest layer replaces the rest.
  assert.equal(layeredSource(["mine();", "far();"], "--prefix", "/", false), "mine();");
});
