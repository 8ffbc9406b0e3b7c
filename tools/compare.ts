/**
 * Renders docs/compare/README.md from the feature register docs/compare/features.json: what mcpx
 * offers against its peers, each mcpx entry naming the commands and settings that provide it
 * (checked against the operations and settings tables), each peer's status naming its source.
 *
 *     deno run -A tools/compare.ts           # check the register, write the page
 *     deno run -A tools/compare.ts --check   # exit 1 naming each problem, or a stale page
 *
 * `deno task gen` (tools/gen.ts) writes the page too, and its `--check` holds it fresh.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { OPERATIONS } from "../lib/operations/mod.ts";
import { SETTINGS } from "../lib/settings/table.ts";
// A cycle (gen.ts renders this page too), safe because neither module uses the other's
// bindings at its top level.
import { formatMarkdown } from "./gen.ts";

/** Where the register is, from the repository root. */
export const REGISTER = "docs/compare/features.json";
/** The page rendered from it, from the repository root. */
export const PAGE = "docs/compare/README.md";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** What a register entry may say of a feature. */
export const STATUSES = ["yes", "partial", "planned", "no", "unknown"] as const;
/** One of {@linkcode STATUSES}. */
export type Status = typeof STATUSES[number];

/** A peer: its column, and the documents its statuses are read from, by key. */
export interface Peer {
  id: string;
  name: string;
  sources: Record<string, string>;
}

/** mcpx's side of a feature. */
export interface McpxEntry {
  status: Status;
  /** Command words as `mcpx help` spells them (`config import`); each must be an operation's. */
  commands?: string[];
  /** Setting keys (`daemon.listen`); each must be in the settings table. */
  settings?: string[];
  note?: string;
}

/** A peer's side of a feature: `src` names one of the peer's sources (none when unknown). */
export interface PeerEntry {
  status: Status;
  how?: string;
  src?: string;
}

/** One row of the register. */
export interface Feature {
  id: string;
  feature: string;
  mcpx: McpxEntry;
  peers: Record<string, PeerEntry>;
}

/** The register as docs/compare/features.json holds it. */
export interface Register {
  about?: string;
  peers: Peer[];
  features: Feature[];
}

/** Reads the register. */
export function loadRegister(root: string = ROOT): Register {
  return JSON.parse(Deno.readTextFileSync(join(root, REGISTER))) as Register;
}

/** Every command of the operations table, its words joined by one space (`session new`). */
export function knownCommands(): Set<string> {
  return new Set(OPERATIONS.map((op) => op.cli.command.join(" ")));
}

/** Every setting key of the settings table. */
export function knownSettings(): Set<string> {
  return new Set(Object.keys(SETTINGS));
}

/**
 * What is wrong with the register, one line each (empty when nothing): unknown statuses, commands
 * or settings mcpx does not have, a peer's known status without a source of that peer, a peer
 * left out of a row, duplicate ids.
 */
export function validate(reg: Register): string[] {
  const problems: string[] = [];
  const commands = knownCommands();
  const settings = knownSettings();
  const statuses = new Set<string>(STATUSES);
  const peers = new Map(reg.peers.map((p) => [p.id, p]));
  if (peers.size !== reg.peers.length) problems.push("a peer id is given twice");
  for (const p of reg.peers) {
    for (const [key, url] of Object.entries(p.sources)) {
      if (!/^https:\/\/\S+$/.test(url)) problems.push(`${p.id}: source ${key} is not an https URL`);
    }
  }
  const ids = new Set<string>();
  for (const f of reg.features) {
    const at = `feature ${f.id}`;
    if (ids.has(f.id)) problems.push(`${at}: the id is given twice`);
    ids.add(f.id);
    if (!statuses.has(f.mcpx.status)) problems.push(`${at}: mcpx status "${f.mcpx.status}"`);
    for (const c of f.mcpx.commands ?? []) {
      if (!commands.has(c)) problems.push(`${at}: no mcpx command "${c}" in OPERATIONS`);
    }
    for (const s of f.mcpx.settings ?? []) {
      if (!settings.has(s)) problems.push(`${at}: no setting "${s}" in SETTINGS`);
    }
    if (
      f.mcpx.status !== "no" && !f.mcpx.commands?.length && !f.mcpx.settings?.length &&
      !f.mcpx.note
    ) {
      problems.push(`${at}: mcpx's status names no command, setting or note`);
    }
    for (const id of peers.keys()) {
      if (!(id in f.peers)) problems.push(`${at}: no entry for ${id} (write "unknown")`);
    }
    for (const [id, entry] of Object.entries(f.peers)) {
      const peer = peers.get(id);
      if (!peer) {
        problems.push(`${at}: ${id} is not a peer of the register`);
        continue;
      }
      if (!statuses.has(entry.status)) problems.push(`${at}: ${id} status "${entry.status}"`);
      if (entry.status === "unknown") {
        if (entry.src || entry.how) problems.push(`${at}: ${id} is unknown but says how or where`);
      } else if (!entry.src || !(entry.src in peer.sources)) {
        problems.push(`${at}: ${id} is "${entry.status}" without a source of ${id}'s`);
      }
    }
  }
  return problems;
}

const GENERATED = `<!-- Generated by tools/compare.ts from ${REGISTER}. Do not edit: change the ` +
  "register and run `deno task gen`. -->";

/** A table cell: pipes escaped, on one line. */
function cell(text: string): string {
  return text.replaceAll("|", "\\|").replace(/\s*\n\s*/g, " ");
}

const commandLink = (c: string) => `[\`mcpx ${c}\`](../cli.md#mcpx-${c.replaceAll(" ", "-")})`;
const settingLink = (s: string) =>
  `[\`${s}\`](../settings.md#${s.toLowerCase().replaceAll(".", "")})`;
const sourceRef = (peer: string, key: string) => `[${peer}.${key}]`;

function mcpxCell(m: McpxEntry): string {
  const parts = [
    ...(m.commands ?? []).map(commandLink),
    ...(m.settings ?? []).map(settingLink),
    ...(m.note ? [m.note] : []),
  ];
  return parts.length ? `${m.status}: ${parts.join(", ")}` : m.status;
}

function peerCell(peer: string, e: PeerEntry): string {
  if (e.status === "unknown") return "unknown";
  const how = e.how ? `: ${e.how}` : "";
  return `${e.status}${how} ${sourceRef(peer, e.src!)}`;
}

/**
 * The page, from the register (deno fmt is applied by the caller).
 * @throws {Error} naming every problem when the register does not validate
 */
export function renderCompare(reg: Register = loadRegister()): string {
  const problems = validate(reg);
  if (problems.length) throw new Error(`${REGISTER}:\n  ${problems.join("\n  ")}`);
  const header = ["feature", "mcpx", ...reg.peers.map((p) => p.name)];
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(" | ")} |`;
  const rows = reg.features.map((f) =>
    line([f.feature, mcpxCell(f.mcpx), ...reg.peers.map((p) => peerCell(p.id, f.peers[p.id]))])
  );
  const count = (status: Status, of: (f: Feature) => Status) =>
    reg.features.filter((f) => of(f) === status).length;
  const tally = [
    ["mcpx", (f: Feature) => f.mcpx.status] as const,
    ...reg.peers.map((p) => [p.name, (f: Feature) => f.peers[p.id].status] as const),
  ].map(([name, of]) => line([name, ...STATUSES.map((s) => String(count(s, of)))]));
  const sourceList = reg.peers.flatMap((p) =>
    Object.entries(p.sources).map(([key, url]) => `- \`${p.id}.${key}\`: <${url}>`)
  );
  const definitions = reg.peers.flatMap((p) =>
    Object.entries(p.sources).map(([key, url]) => `${sourceRef(p.id, key)}: ${url}`)
  );
  return [
    "---",
    "summary: What mcpx offers against mcporter, apify's mcpc, the MCP Inspector, 1MCP and " +
    "Cloudflare's Code Mode, feature by feature, each peer's status with its source, rendered " +
    `from ${REGISTER}`,
    "read_when: comparing mcpx with another MCP client or gateway, deciding what to build next, " +
    "or updating a peer's status (edit the register, then `deno task gen`)",
    "---",
    "",
    GENERATED,
    "",
    "# mcpx and its peers",
    "",
    `${reg.features.length} features. Each mcpx entry names the commands and settings that ` +
    "provide it; `tests/compare_test.ts` holds that each exists in the operations table " +
    "(lib/operations/mod.ts) and the settings table (lib/settings/table.ts). Each peer's status " +
    "names the document it was read from (the references below the table). **unknown** means " +
    "no document read here says either way: it is not a no. A peer's documents change faster " +
    "than this page; the status is as of the version read, and a row is corrected in the " +
    `register (${REGISTER.replace("docs/compare/", "")}), never here.`,
    "",
    "Statuses: **yes**; **partial** (some of it, said how); **planned** (the peer's documents say " +
    "so); **no** (the documents say not, or for mcpx: not built); **unknown**.",
    "",
    line(header),
    line(header.map(() => "---")),
    ...rows,
    "",
    "## Counts",
    "",
    line(["", ...STATUSES]),
    line(["---", ...STATUSES.map(() => "---")]),
    ...tally,
    "",
    "## Sources",
    "",
    "As found with the documentation search of this project's tools; a repository's README was " +
    "read at the version the search had stored, mcpc's at its snapshot of 2026-01-27 beside its " +
    "repository's newer description (`mcpc.repo`). Code Mode was read through summaries of the " +
    "post (agentpatternscatalog.org, aikumi.news), not the post itself.",
    "",
    ...sourceList,
    "",
    ...definitions,
    "",
  ].join("\n");
}

if (import.meta.main) {
  const unknown = Deno.args.filter((a) => a !== "--check");
  if (unknown.length > 0) {
    console.error(
      `compare: unknown argument ${unknown[0]}; usage: deno run -A tools/compare.ts [--check]`,
    );
    Deno.exit(2);
  }
  const check = Deno.args.includes("--check");
  const reg = loadRegister();
  const problems = validate(reg);
  if (problems.length) {
    console.error(`compare: ${REGISTER}:\n  ${problems.join("\n  ")}`);
    Deno.exit(1);
  }
  const want = await formatMarkdown(renderCompare(reg));
  const path = join(ROOT, PAGE);
  let have: string | undefined;
  try {
    have = Deno.readTextFileSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  if (have !== want) {
    if (check) {
      console.error(`compare: ${PAGE} is stale. Run \`deno task gen\` and commit it.`);
      Deno.exit(1);
    }
    Deno.writeTextFileSync(path, want);
    console.log(`compare: wrote ${PAGE}`);
  }
}
