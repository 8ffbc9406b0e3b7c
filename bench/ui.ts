/**
 * The web page's first render (docs/ui.md, "The web page").
 *
 *     deno run -A bench/ui.ts [--runs 15]
 *
 * A daemon for a configuration of server-memory (refreshed first, so its namespace is listed),
 * headless Chromium over CDP (tests/_cdp.ts). Each run opens a new tab on a new `mcpx ui`
 * address and reads, from the page's own clock, when the namespaces were drawn
 * (`performance.mark("mcpx-first-render")`, milliseconds since the navigation began): the page,
 * its style and script, the code exchanged for a session, `/v1/namespaces` answered, the list
 * drawn. The baseline, in the same browser and alternating with it, is a blank page from a
 * loopback server of this process whose one module script sets the same mark: what any page with
 * a script costs here. Prints the medians, the p90s and the ratio.
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import {
  ENTRY,
  formatTable,
  makeIsolated,
  mcpxArgs,
  median,
  percentile,
  REPO,
  runDeno,
  teardown,
  wholeNumber,
} from "./_shared.ts";
import { Chromium, type Page } from "../tests/_cdp.ts";

const args = parseArgs({ args: Deno.args, options: { runs: { type: "string", default: "15" } } });
const RUNS = wholeNumber("runs", args.values.runs!, 1);

const { root, env } = await makeIsolated("mcpx-bench-ui-");
const work = join(root, "work");
await Deno.mkdir(work);
const memory = join(
  REPO,
  "tests/npm/node_modules/@modelcontextprotocol/server-memory/dist/index.js",
);
await Deno.writeTextFile(
  join(work, ".mcpx.json"),
  JSON.stringify({ mcpServers: { memory: { command: "node", args: [memory] } } }),
);

const BLANK = `<!doctype html><html><head><meta charset="utf-8"><title>blank</title>` +
  `<script type="module" src="/blank.js"></script></head><body></body></html>`;
const blank = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
  const path = new URL(req.url).pathname;
  return path === "/blank.js"
    ? new Response(`performance.mark("mcpx-first-render");\n`, {
      headers: { "content-type": "text/javascript" },
    })
    : new Response(BLANK, { headers: { "content-type": "text/html" } });
});

/** The page's marks (milliseconds from navigation), in a new tab, once the first render is. */
async function firstRender(browser: Chromium, url: string): Promise<Record<string, number>> {
  const page: Page = await browser.page();
  try {
    await page.goto(url);
    await page.until(`performance.getEntriesByName("mcpx-first-render")[0]`);
    return await page.eval<Record<string, number>>(
      `Object.fromEntries(performance.getEntriesByType("mark").map((m) => [m.name, m.startTime]))`,
    );
  } finally {
    await page.close();
  }
}

const marks: Record<string, number>[] = [];
const ui: number[] = [];
const base: number[] = [];
let problems: string[] = [];
try {
  await runDeno(mcpxArgs(["refresh"]), work, env);
  await using browser = await Chromium.launch();
  const address = async () =>
    (JSON.parse(await runDeno(mcpxArgs(["ui", "--json"]), work, env)) as { url: string }).url;
  // One of each first, not counted: Chromium's own first page, the daemon's first answers.
  await firstRender(browser, await address());
  await firstRender(browser, `http://127.0.0.1:${blank.addr.port}/`);
  for (let i = 0; i < RUNS; i++) {
    const got = await firstRender(browser, await address());
    marks.push(got);
    ui.push(got["mcpx-first-render"]);
    base.push(
      (await firstRender(browser, `http://127.0.0.1:${blank.addr.port}/?${i}`))[
        "mcpx-first-render"
      ],
    );
  }
} finally {
  await blank.shutdown();
  problems = await teardown(root, env);
}

const ms = (x: number) => x.toFixed(1);
console.log(`web page first render, ${RUNS} runs each, headless Chromium (${ENTRY})\n`);
console.log(formatTable([
  ["page", "median ms", "p90 ms", "what"],
  ["/ui", ms(median(ui)), ms(percentile(ui, 0.9)), "namespaces drawn (code exchanged, /v1 read)"],
  ["blank", ms(median(base)), ms(percentile(base, 0.9)), "a page whose one module sets the mark"],
]));
console.log(`\nratio /ui ÷ blank: ${(median(ui) / median(base)).toFixed(2)}x`);
const at = (name: string) => ms(median(marks.map((m) => m[name])));
console.log(
  `/ui's medians: its script ran at ${at("mcpx-script")} ms, /v1/namespaces answered at ${
    at("mcpx-namespaces")
  } ms (after the code exchange), the list drawn at ${at("mcpx-first-render")} ms`,
);
for (const p of problems) console.error(`bench/ui.ts: ${p}`);
if (problems.length) Deno.exit(1);
