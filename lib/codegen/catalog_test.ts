import assert from "node:assert/strict";
import type { ToolInfo } from "../mcp/types.ts";
import { realNamespaces } from "./_testing.ts";
import { catalog, type CatalogNamespace, estimateTokens } from "./catalog.ts";

const REAL = realNamespaces();
const TOTAL = REAL.reduce((n, s) => n + s.tools.length, 0);

// The functions a catalog shows, as `ns.fn`, in the order they appear.
function shown(text: string): string[] {
  const out: string[] = [];
  let ns = "";
  for (const line of text.split("\n")) {
    const block = line.match(/^declare namespace (\w+) \{/);
    if (block) ns = block[1];
    const fn = line.match(/^ {2}function (\w+)\(/);
    if (fn) out.push(`${ns}.${fn[1]}`);
  }
  return out;
}

function tool(name: string, description = "", props = 0): ToolInfo {
  const properties = Object.fromEntries(
    Array.from({ length: props }, (_, i) => [`p${i}`, { type: "string" }]),
  );
  return { name, description, inputSchema: { type: "object", properties } };
}

Deno.test("estimateTokens() is UTF-8 bytes over four, rounded up", () => {
  assert.equal(estimateTokens(""), 0);
  assert.equal(estimateTokens("abcd"), 1);
  assert.equal(estimateTokens("abcde"), 2);
  assert.equal(estimateTokens("é"), 1); // 2 bytes
  assert.equal(estimateTokens("€€"), 2); // 6 bytes
  assert.equal(estimateTokens("😀"), 1); // 4 bytes, one surrogate pair
  assert.equal(estimateTokens("\ud800"), 1); // a lone surrogate is encoded as U+FFFD
  const sample = "mixed ascii, é, €, 😀 and \ud800 text";
  assert.equal(estimateTokens(sample), Math.ceil(new TextEncoder().encode(sample).length / 4));
});

Deno.test("catalog() never exceeds its budget, from 0 to 5000 tokens, on the real servers", () => {
  // Every budget where the namespace list is cut and the first signatures go in, then a stride
  // (prime, so it meets every remainder of the estimate's division by four).
  const budgets = [];
  for (let b = 0; b <= 400; b++) budgets.push(b);
  for (let b = 401; b <= 5000; b += 13) budgets.push(b);
  budgets.push(5000);
  for (const budget of budgets) {
    const text = catalog(REAL, { budget });
    assert.ok(estimateTokens(text) <= budget, `budget ${budget}: ${estimateTokens(text)}`);
  }
  for (const budget of [50, 123, 777, 2000, 4999]) {
    const text = catalog(REAL, { budget, bias: ["page", "file"] });
    assert.ok(estimateTokens(text) <= budget, `biased, budget ${budget}`);
  }
});

Deno.test("catalog() lists every namespace first whenever they fit, with counts", () => {
  const text = catalog(REAL, { budget: 100 });
  assert.equal(
    text.split("\n").slice(0, 4).join("\n"),
    [
      "// chrome_devtools  32 tools  drive a headless Chrome",
      "// everything       13 tools  MCP reference server exercising every protocol feature",
      "// filesystem       14 tools  read and write files under allowed directories",
      "// memory            9 tools  a knowledge graph kept between sessions",
    ].join("\n"),
  );
  for (let budget = 100; budget <= 5000; budget += 100) {
    const lines = catalog(REAL, { budget }).split("\n");
    for (const s of REAL) assert.ok(lines.some((l) => l.startsWith(`// ${s.ns} `)), s.ns);
  }
});

Deno.test("catalog() ends with how many signatures were left out and how to get them", () => {
  const small = catalog(REAL, { budget: 300 });
  const n = shown(small).length;
  assert.ok(
    small.endsWith(
      `\n// ${
        TOTAL - n
      } of ${TOTAL} signatures left out; see \`mcpx types <ns>\` or \`<ns>.<tool>\`.\n`,
    ),
    small,
  );
  const all = catalog(REAL, { budget: 100_000 });
  assert.equal(shown(all).length, TOTAL);
  assert.ok(all.endsWith(`\n// All ${TOTAL} signatures shown.\n`));
});

Deno.test("catalog() picks round-robin across namespaces, shortest first in each", () => {
  const namespaces: CatalogNamespace[] = [
    { ns: "a", tools: [tool("a_long", "", 10), tool("a_short"), tool("a_mid", "", 6)] },
    { ns: "b", tools: [tool("b_mid", "", 7), tool("b_short")] },
  ];
  const all = catalog(namespaces, { budget: 10_000 });
  // In a block, tools appear in the order they were picked.
  assert.deepEqual(shown(all), ["a.a_short", "a.a_mid", "a.a_long", "b.b_short", "b.b_mid"]);
  // As the budget grows one token at a time, each round adds the shortest remaining tool of
  // every namespace before any namespace gets another.
  const firstSeen: string[] = [];
  for (let budget = 0; budget <= estimateTokens(all); budget++) {
    for (const fn of shown(catalog(namespaces, { budget }))) {
      if (!firstSeen.includes(fn)) firstSeen.push(fn);
    }
  }
  assert.deepEqual(firstSeen, ["a.a_short", "b.b_short", "a.a_mid", "b.b_mid", "a.a_long"]);
});

Deno.test("catalog() shows the tools matching the bias first", () => {
  const text = catalog(REAL, { budget: 600, bias: ["screenshot"] });
  assert.ok(shown(text).includes("chrome_devtools.take_screenshot"), text);
  assert.ok(!shown(catalog(REAL, { budget: 600 })).includes("chrome_devtools.take_screenshot"));
  // Matching is on name or description, case-insensitive.
  const byDescription = catalog(REAL, { budget: 600, bias: ["KNOWLEDGE GRAPH"] });
  assert.ok(shown(byDescription).some((f) => f.startsWith("memory.")));
  // A name match beats a description match ("Prefer taking a snapshot over taking a screenshot").
  assert.equal(shown(text)[0], "chrome_devtools.take_screenshot");
  // A matching tool goes before shorter ones in its namespace's queue.
  const namespaces: CatalogNamespace[] = [
    { ns: "a", tools: [tool("short"), tool("longer_match", "the word", 3)] },
  ];
  assert.deepEqual(shown(catalog(namespaces, { budget: 10_000, bias: ["word"] })), [
    "a.longer_match",
    "a.short",
  ]);
});

Deno.test("catalog() weighs a tool's tags in the bias as search does", () => {
  const namespaces: CatalogNamespace[] = [
    {
      ns: "a",
      tools: [tool("short"), tool("plain_long_name", "nothing to see", 3)],
      tagsOf: (t) => t === "plain_long_name" ? ["image"] : [],
    },
  ];
  // Shortest first without a bias; the tagged tool first with its tag as the bias.
  assert.deepEqual(shown(catalog(namespaces, { budget: 10_000 })), [
    "a.short",
    "a.plain_long_name",
  ]);
  assert.deepEqual(shown(catalog(namespaces, { budget: 10_000, bias: ["image"] })), [
    "a.plain_long_name",
    "a.short",
  ]);
  // Without tagsOf the tag is unknown, and the order is the unbiased one.
  const untagged = [{ ...namespaces[0], tagsOf: undefined }];
  assert.deepEqual(shown(catalog(untagged, { budget: 10_000, bias: ["image"] })), [
    "a.short",
    "a.plain_long_name",
  ]);
});

Deno.test("catalog() cuts the namespace list short with a line counting the rest", () => {
  const many: CatalogNamespace[] = Array.from({ length: 40 }, (_, i) => ({
    ns: `server_${String(i).padStart(2, "0")}`,
    description: "a server with a description long enough to matter for the budget",
    tools: [tool("t")],
  }));
  const text = catalog(many, { budget: 200 });
  assert.ok(estimateTokens(text) <= 200);
  const more = text.match(/^\/\/ … (\d+) more namespaces$/m);
  assert.ok(more, text);
  const listed = text.split("\n").filter((l) => /^\/\/ server_/.test(l)).length;
  assert.equal(listed + Number(more[1]), 40);
  assert.equal(shown(text).length, 0);
  assert.equal(catalog(many, { budget: 3 }), "");
});

Deno.test("catalog() is deterministic and does not depend on input order", () => {
  const a = catalog(REAL, { budget: 1500, bias: ["file"] });
  const b = catalog([...REAL].reverse().map((s) => ({ ...s, tools: [...s.tools].reverse() })), {
    budget: 1500,
    bias: ["file"],
  });
  assert.equal(a, b);
});

Deno.test("catalog() clips a long description to one line", () => {
  const text = catalog([{ ns: "x", description: "line\none " + "y".repeat(200), tools: [] }], {
    budget: 1000,
  });
  const first = text.split("\n")[0];
  assert.ok(first.startsWith("// x  0 tools  line one yyy"), first);
  assert.ok(first.endsWith("…"));
  assert.equal([...first].length, "// x  0 tools  ".length + 100);
});
