import { McpxError } from "../errors.ts";
import { defineOperation, type Zod } from "./define.ts";
import type { Context } from "../context.ts";
import type { SessionView } from "../sessions/named.ts";
import { load } from "../_load.ts";

function named(ctx: Context) {
  const s = ctx.daemon?.sessions;
  if (!s) throw new McpxError("INTERNAL", "This operation runs inside the daemon");
  return s;
}

function namedModule() {
  return load<typeof import("../sessions/named.ts")>("../sessions/named.ts", import.meta.url);
}

function sessionSchema(z: Zod) {
  return z.object({
    name: z.string(),
    key: z.string(),
    state: z.enum(["open", "expired"]),
    ttlMs: z.number(),
    createdAt: z.string(),
    lastUsedAt: z.string(),
    expiresAt: z.string(),
    servers: z.array(
      z.object({
        server: z.string(),
        instance: z.string(),
        pid: z.number().nullable(),
        since: z.string(),
      }),
    ),
    holder: z.object({ id: z.string(), since: z.string(), via: z.enum(["create", "take"]) })
      .loose(),
    notes: z.array(z.string()),
  }).loose();
}

const NAME_PARAM = {
  name: "name",
  type: "string",
  positional: true,
  required: true,
  doc: "The session's name",
} as const;

/** The session's row: name, state, servers, expiry, holder. */
function row(s: SessionView): string[] {
  const servers = s.servers.length
    ? s.servers.map((x) => `${x.server}${x.pid ? `(pid ${x.pid})` : ""}`).join(",")
    : "-";
  return [
    s.name,
    s.state,
    servers,
    s.state === "open" ? s.expiresAt : s.expiredAt ?? "",
    s.holder.id,
  ];
}

async function table(list: SessionView[], none: string): Promise<string> {
  if (list.length === 0) return none;
  const { renderTable } = await load<typeof import("../table.ts")>("../table.ts", import.meta.url);
  return renderTable(
    ["NAME", "STATE", "SERVERS", "EXPIRES", "HOLDER"],
    list.map(row),
  );
}

/** A session in full, as `session show` prints it. */
async function describe(s: SessionView): Promise<string> {
  const { formatDuration } = await load<typeof import("../duration.ts")>(
    "../duration.ts",
    import.meta.url,
  );
  const by = s.createdBy;
  const rows: [string, string][] = [
    ["session", s.name],
    ["state", s.state],
    ["key", s.key],
    ["ttl", `${formatDuration(s.ttlMs)} after its last call`],
    [
      "created",
      `${s.createdAt} by ${by.holder}${by.user ? ` (${by.user})` : ""}${
        by.cwd ? ` in ${by.cwd}` : ""
      }`,
    ],
    ["last used", s.lastUsedAt],
    [
      s.state === "open" ? "expires" : "expired",
      s.state === "open" ? s.expiresAt : s.expiredAt ?? "",
    ],
    [
      "holder",
      `${s.holder.id} since ${s.holder.since}${s.holder.via === "take" ? " (took it over)" : ""}`,
    ],
    [
      "servers",
      s.servers.length
        ? s.servers.map((x) => `${x.server} (instance ${x.instance}, pid ${x.pid ?? "-"})`).join(
          ", ",
        )
        : "none running (they start at the session's next call)",
    ],
  ];
  if (by.ids && Object.keys(by.ids).length) {
    rows.push(["ids", Object.entries(by.ids).map(([k, v]) => `${k}=${v}`).join(" ")]);
  }
  if (s.attaches.length) {
    rows.push([
      "attaches",
      s.attaches.slice(-5).map((a) => `${a.mode} by ${a.by} at ${a.at}`).join("; "),
    ]);
  }
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join("\n") + "\n" +
    s.notes.map((n) => `note: ${n}\n`).join("");
}

/** `mcpx session new --name <name> [--ttl 2h]`. */
export const sessionsCreate = defineOperation<{ name: string; ttl?: string }, SessionView>({
  id: "sessions.create",
  summary: "Create a named session that outlives the command: rejoin it with --session <name>",
  description:
    "The session's processes (of servers with scope session) are leased under session:<name>, never stopped to make room, and stopped once the session goes --ttl (session.ttl, 2h by default; 1s to 30d) without a call. Its record (name, TTL, holder, who created it, which servers serve it) is kept in the state directory and survives a daemon restart; its processes do not, and the session says so. A second session of the same name is refused while the first is open. docs/sessions.md.",
  params: [
    {
      name: "name",
      type: "string",
      required: true,
      doc: "The session's name: 1 to 64 letters, digits, ., _ or -",
    },
    {
      name: "ttl",
      type: "string",
      doc: "How long it lives after its last call (1s to 30d; default the session.ttl setting)",
    },
  ],
  cli: {
    command: ["session", "new"],
    examples: [[
      "mcpx session new --name login-flow",
      "A named session; pass --session login-flow to each command",
    ], ["mcpx session new --name nightly --ttl 8h", "One that lives 8 hours after its last call"]],
  },
  http: { method: "POST", path: "/v1/sessions" },
  mcp: { expose: true },
  where: { daemon: "start" },
  output: sessionSchema,
  async run(input, ctx) {
    const { parseTtl, checkName } = await namedModule();
    checkName(input.name);
    // Its record and processes would end with this command, a moment after it said "created".
    if (ctx.daemon?.inline) {
      throw new McpxError("USAGE", "A named session needs a daemon that outlives this command", {
        hint: "Run `mcpx start` first, or drop --inline (daemon.inline)",
      });
    }
    const settings = await ctx.settings();
    const ttlMs = input.ttl !== undefined
      ? parseTtl(input.ttl)
      : parseTtl(String(settings.get("session.ttl")), "session.ttl");
    return named(ctx).create(input.name, ttlMs, ctx.caller);
  },
  async render(s) {
    const { formatDuration } = await load<typeof import("../duration.ts")>(
      "../duration.ts",
      import.meta.url,
    );
    return `session ${s.name} created: ttl ${
      formatDuration(s.ttlMs)
    } after its last call (expires ${s.expiresAt} unless used); join it with --session ${s.name} or MCPX_SESSION_ID=${s.name}\n`;
  },
});

/** `mcpx session ls`. */
export const sessionsList = defineOperation<Record<string, never>, { sessions: SessionView[] }>({
  id: "sessions.list",
  summary: "List the named sessions: state, servers serving them, expiry, holder",
  params: [],
  cli: {
    command: ["session", "ls"],
    examples: [["mcpx session ls", "Every named session: state, servers, expiry, holder"], [
      "mcpx --json session ls",
      "The same as JSON",
    ]],
  },
  http: { method: "GET", path: "/v1/sessions" },
  mcp: { expose: true, readOnly: true },
  where: { daemon: "start" },
  output: (z) => z.object({ sessions: z.array(sessionSchema(z)) }),
  run: (_input, ctx) => Promise.resolve({ sessions: named(ctx).list() }),
  render: (o) =>
    table(o.sessions, "No named sessions. Create one with: mcpx session new --name <name>\n"),
});

/** `mcpx session search <words>`. */
export const sessionsSearch = defineOperation<{ query: string }, { sessions: SessionView[] }>({
  id: "sessions.search",
  summary: "Find named sessions by words in their name, creator, cwd, ids, holder or servers",
  params: [{
    name: "query",
    type: "string",
    required: true,
    doc: "Words that must all occur (case-insensitive)",
  }],
  cli: {
    command: ["session", "search"],
    usage: "<words...>",
    positionals: (words) => {
      if (words.length === 0) {
        throw new McpxError("USAGE", '"mcpx session search" needs words to look for', {
          hint: "For example: mcpx session search login",
        });
      }
      return { query: words.join(" ") };
    },
    fills: ["query"],
    example: ["login"],
    examples: [[
      "mcpx session search login",
      "Named sessions with login in their name, creator, cwd or servers",
    ], ["mcpx session search playwright agent", "Both words"]],
  },
  http: { method: "GET", path: "/v1/search/sessions" },
  mcp: { expose: true, readOnly: true },
  where: { daemon: "start" },
  output: (z) => z.object({ sessions: z.array(sessionSchema(z)) }),
  run: (input, ctx) => Promise.resolve({ sessions: named(ctx).search(input.query) }),
  render: (o, _ctx, input) => table(o.sessions, `No named session matches "${input.query}"\n`),
});

/** `mcpx session show <name>`. */
export const sessionsShow = defineOperation<{ name: string }, SessionView>({
  id: "sessions.show",
  summary: "Show one named session: its record, the servers serving it, what happened to it",
  params: [NAME_PARAM],
  cli: {
    command: ["session", "show"],
    example: ["login-flow"],
    examples: [
      ["mcpx session show login-flow", "Its record, its servers and what happened to it"],
      ["mcpx --json session show login-flow", "The same as JSON"],
    ],
  },
  http: { method: "GET", path: "/v1/sessions/{name}" },
  mcp: { expose: true, readOnly: true },
  where: { daemon: "start" },
  output: sessionSchema,
  run: (input, ctx) => Promise.resolve(named(ctx).show(input.name)),
  render: (s) => describe(s),
});

/** `mcpx session end <name>`. */
export const sessionsClose = defineOperation<
  { name: string },
  { session: string; stopped: number }
>({
  id: "sessions.close",
  summary: "End a named session: stop its server processes and remove its record",
  params: [NAME_PARAM],
  cli: {
    command: ["session", "end"],
    example: ["login-flow"],
    examples: [["mcpx session end login-flow", "Stop its server processes and remove its record"], [
      "mcpx --json session end login-flow",
      "What was stopped, as JSON",
    ]],
  },
  http: { method: "POST", path: "/v1/sessions/{name}/close" },
  mcp: { expose: true, destructive: true },
  where: { daemon: "start" },
  output: (z) => z.object({ session: z.string(), stopped: z.number() }),
  async run(input, ctx) {
    const { stopped } = await named(ctx).end(input.name);
    return { session: input.name, stopped };
  },
  render: (o) => `session ${o.session} ended: stopped ${o.stopped} process(es)\n`,
});

/** What `session attach` answers: the session, and where on the event bus its watch begins. */
interface Attached {
  session: SessionView;
  mode: "watch" | "take";
  /** The bus's newest event when it attached: a watch reads what follows. */
  since: number;
  followed?: number;
}

/** `mcpx session attach <name> [--watch] [--take]`. */
export const sessionsAttach = defineOperation<
  { name: string; watch?: boolean; take?: boolean },
  Attached
>({
  id: "sessions.attach",
  summary:
    "Attach to a named session: --watch prints its calls as they happen, --take makes you its holder",
  description:
    "--watch (also what attach alone does) follows the daemon's event bus (GET /v1/events) and prints each call made in the session (tool, arguments and a summary of the result, or the error) until the session ends or expires, or until interrupted; with --json each is one JSON line. --take makes this caller (MCPX_SESSION_HOLDER, else the command's parent process) the session's holder: from then on every other caller's call in it fails with exit 10, saying who took it over and when. Both are recorded in the daemon log, on the event bus (session.attached, session.taken) and in the session's record. Only the daemon's own user reaches it (its socket is 0600; its TCP listener asks for the bearer token).",
  params: [
    NAME_PARAM,
    { name: "watch", type: "boolean", doc: "Print the session's calls as they happen" },
    {
      name: "take",
      type: "boolean",
      doc: "Become the session's holder: every other caller's next call in it fails (exit 10)",
    },
  ],
  cli: {
    command: ["session", "attach"],
    example: ["login-flow", "--watch"],
    examples: [["mcpx session attach login-flow --watch", "Print its calls as they happen"], [
      "mcpx session attach login-flow --take",
      "Become its holder (the former holder's next call exits 10)",
    ]],
  },
  http: { method: "POST", path: "/v1/sessions/{name}/attach" },
  mcp: { expose: false },
  where: { daemon: "start" },
  output: (z) =>
    z.object({
      session: sessionSchema(z),
      mode: z.enum(["watch", "take"]),
      since: z.number(),
      followed: z.number().optional(),
    }),
  run(input, ctx) {
    // Neither flag is a watch: on the command line it prints (--watch), over HTTP it is recorded.
    const mode = input.take ? "take" : "watch";
    const since = ctx.daemon?.events?.last ?? 0;
    return Promise.resolve({
      session: named(ctx).attach(input.name, mode, ctx.caller),
      mode,
      since,
    });
  },
  async render(out, ctx, input) {
    const head = out.mode === "take"
      ? `session ${out.session.name}: you (${out.session.holder.id}) are its holder now; other callers' calls in it fail\n`
      : "";
    if (!input.watch && input.take) return head;
    ctx.io.out(head);
    await watch(
      ctx,
      out,
      (text) => ctx.io.out(text),
      false,
      () => ctx.io.out(`watching session ${out.session.name} (interrupt to stop)\n`),
    );
    return "";
  },
  async json(out, ctx, input) {
    if (!input.watch && input.take) return out;
    const followed = await watch(
      ctx,
      out,
      (text) => ctx.io.out(text),
      true,
      () => ctx.io.out(JSON.stringify({ attached: out.session.name, mode: out.mode }) + "\n"),
    );
    return { followed };
  },
});

/**
 * Follows the bus from `since` and prints the session's events until it ends or expires, or the
 * daemon stops; `opened` is told once the stream is open. Resolves to how many it printed.
 */
async function watch(
  ctx: Context,
  out: Attached,
  print: (text: string) => void,
  json: boolean,
  opened: () => void,
): Promise<number> {
  const { streamEvents } = await load<typeof import("./events_op.ts")>(
    "./events_op.ts",
    import.meta.url,
  );
  const name = out.session.name;
  let n = 0;
  const stop = new AbortController();
  await streamEvents(
    ctx,
    `/v1/events?follow=true&since=${out.since}`,
    (d) => {
      if (d.type === "gap" || !("data" in d)) return;
      // The daemon going takes the session's processes with it (its record stays): said, and done.
      if (d.type === "daemon.stopping") {
        print(json ? JSON.stringify(d) + "\n" : eventLine(d));
        stop.abort();
        return;
      }
      if (d.data.session !== name) return;
      n++;
      print(json ? JSON.stringify(d) + "\n" : eventLine(d));
      if (d.type === "session.ended" || d.type === "session.expired") stop.abort();
    },
    stop.signal,
    opened,
  );
  return n;
}

/** One session event as a person reads it. */
function eventLine(e: { id: number; time: string; type: string; data: Record<string, unknown> }) {
  const d = e.data;
  if (e.type === "call.finished") {
    const outcome = d.ok ? `ok ${d.result ?? ""}`.trim() : `error ${d.error ?? ""}`;
    return `${e.time} ${d.server}.${d.tool} ${
      d.arguments ?? "{}"
    } -> ${outcome} (${d.durationMs} ms)\n`;
  }
  const rest = Object.entries(d).filter(([k]) => k !== "session").map(([k, v]) =>
    `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`
  ).join(" ");
  return `${e.time} ${e.type}${rest ? ` ${rest}` : ""}\n`;
}
