import assert from "node:assert/strict";
import { join } from "node:path";
import { chromeServerConfig } from "../fixtures/chrome.ts";
import { servePages } from "../fixtures/pages.ts";
import { Sandbox } from "../_helpers.ts";

// The agent's script from the walk at the top of the reference, against a local page.
const SHOT_FLOW = `// Screenshot a page, click its first link, wait for load, screenshot again.
//
// Usage: mcpx run shot-flow [url] [outDir]
import tools from "./mcpx-client.ts";

const cd = tools.chrome_devtools;
const url = Deno.args[0] ?? "http://127.0.0.1/";
const outDir = Deno.args[1] ?? "./shots";
await Deno.mkdir(outDir, { recursive: true });

async function shot(pageId: number, name: string): Promise<string> {
  const result = await cd.take_screenshot({ pageId });
  const image = ((result.raw as any)?.content ?? []).find((c: any) => c.type === "image");
  const path = \`\${outDir}/\${name}.png\`;
  await Deno.writeFile(path, Uint8Array.from(atob(image.data), (c) => c.charCodeAt(0)));
  return path;
}

await cd.new_page({ url });

// list_pages prints "<id>: <title> (<url>)"; find the one we just opened.
const pages = String(await cd.list_pages({}));
const host = new URL(url).host;
const rows = pages.split("\\n").filter((line) => line.includes(host) && /^\\d+:/.test(line));
if (rows.length !== 1) throw new Error(\`expected one page for \${host} in:\\n\${pages}\`);
const pageId = Number(rows[0].split(":")[0]);

const before = await shot(pageId, "1-before");

// The a11y snapshot gives every element a uid; click needs that, not a selector.
const snapshot = String(await cd.take_snapshot({ pageId }));
const uid = snapshot.match(/uid=(\\S+) link "/)?.[1];
if (!uid) throw new Error(\`no link in snapshot:\\n\${snapshot}\`);

await cd.click({ pageId, uid });
await cd.wait_for({ pageId, text: ["Arrived"] });

const after = await shot(pageId, "2-after");
const reached = String(await cd.take_snapshot({ pageId })).includes("Arrived at the second page");
console.log(JSON.stringify({ url, clicked: uid, before, after, reached }, null, 2));
`;

/** A PNG's width and height, from its IHDR chunk; throws when the bytes are not a PNG. */
function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const signature = [137, 80, 78, 71, 13, 10, 26, 10];
  assert.deepEqual([...bytes.slice(0, 8)], signature, "PNG signature");
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  assert.equal(new TextDecoder().decode(bytes.slice(12, 16)), "IHDR");
  const tail = new TextDecoder().decode(bytes.slice(bytes.length - 8, bytes.length - 4));
  assert.equal(tail, "IEND", "the PNG is complete");
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

Deno.test("walk: the agent's shot-flow script, run by name, then twice at once without cross-talk", async () => {
  await using pages = await servePages();
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      "chrome-devtools": {
        ...chromeServerConfig(),
        mcpx: {
          sharing: "exclusive",
          scope: "session",
          max: 4,
          description: "drive a headless Chrome",
        },
      },
    },
  });
  await box.write("work/.mcpx/scripts/shot-flow.ts", SHOT_FLOW);
  await box.json(["refresh"]);

  const run = await box.mcpx(["run", "shot-flow", pages.url, "./shots"]);
  assert.equal(run.code, 0, run.stderr);
  const out = JSON.parse(run.stdout);
  assert.equal(out.reached, true, "the second page was reached");
  assert.match(out.clicked, /^\d+_\d+$/);
  const first = await Deno.readFile(join(box.root, "work", out.before));
  const second = await Deno.readFile(join(box.root, "work", out.after));
  assert.ok(pngSize(first).width > 0 && pngSize(second).height > 0);
  assert.notDeepEqual(first, second, "the two screenshots differ");

  // Two runs at once: each gets its own browser (each sees only its own page).
  const [a, b] = await Promise.all([
    box.mcpx(["run", "shot-flow", pages.url, "./a"]),
    box.mcpx(["run", "shot-flow", pages.url, "./b"]),
  ]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(b.code, 0, b.stderr);
  assert.equal(JSON.parse(a.stdout).reached, true);
  assert.equal(JSON.parse(b.stdout).reached, true);
  const status = await box.json<{ servers: { instances: unknown[] }[] }>(["status"]);
  assert.equal(status.servers[0].instances.length, 0, "each run's minted session was released");
});
