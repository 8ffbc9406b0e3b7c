/**
 * The browser's {@linkcode ViewSource} over mcpx's own operations: `ls`, `types`, `log`, `stats`
 * and `status` answer the views as they answer the commands, so the browser shows nothing a
 * command would not.
 */

import type { Context } from "../context.ts";
import { load } from "../_load.ts";
import { formatDuration } from "../duration.ts";
import { functionNames } from "../names.ts";
import type { Grid, NamespaceItem, Row, StatsKind, ToolItem, ViewSource } from "./source.ts";

const loadLs = () =>
  load<typeof import("../operations/ls_op.ts")>("../operations/ls_op.ts", import.meta.url);
const loadDiscoveryOps = () =>
  load<typeof import("../operations/discovery_ops.ts")>(
    "../operations/discovery_ops.ts",
    import.meta.url,
  );
const loadDiscovery = () =>
  load<typeof import("../discovery/load.ts")>("../discovery/load.ts", import.meta.url);
const loadLogOps = () =>
  load<typeof import("../operations/log_ops.ts")>("../operations/log_ops.ts", import.meta.url);
const loadDaemonOps = () =>
  load<typeof import("../operations/daemon_ops.ts")>(
    "../operations/daemon_ops.ts",
    import.meta.url,
  );
const loadUiOps = () =>
  load<typeof import("../operations/ui_ops.ts")>("../operations/ui_ops.ts", import.meta.url);
const loadBound = () =>
  load<typeof import("../output/bound.ts")>("../output/bound.ts", import.meta.url);
const loadSessionOps = () =>
  load<typeof import("../operations/session_ops.ts")>(
    "../operations/session_ops.ts",
    import.meta.url,
  );
const loadExecute = () =>
  load<typeof import("../surfaces/execute.ts")>("../surfaces/execute.ts", import.meta.url);

/** The first line of a description, for the tools pane. */
function firstLine(text: string | undefined): string {
  const t = (text ?? "").trim();
  const nl = t.indexOf("\n");
  return nl < 0 ? t : t.slice(0, nl);
}

/** What the sessions view shows of a named session (`mcpx session ls`). */
export interface NamedSession {
  name: string;
  key: string;
  state: string;
  expiresAt: string;
  servers: { server: string }[];
}

/**
 * The sessions view's rows: mcpx's runs (`mcpx stats sessions`), with opencode's title, cost and
 * tokens where it recorded the same session, and the named sessions the daemon holds (each run
 * under one marked with it; one with no run yet a row of its own). mcpx knows which servers a
 * session used, opencode what it cost: neither alone is the row anybody wants.
 */
export function mergeSessions(mine: Row[], opencode: Row[], named: NamedSession[]): Row[] {
  const costs = new Map(opencode.map((r) => [r.session as string, r]));
  const rows: Row[] = mine.map((m) => {
    const o = costs.get(m.session as string);
    if (o) costs.delete(m.session as string);
    return o
      ? { ...m, title: o.title, cost: o.cost, tokensIn: o.tokensIn, tokensOut: o.tokensOut }
      : { ...m };
  });
  for (const o of costs.values()) rows.push({ ...o });
  for (const n of named.toReversed()) {
    const facts = {
      named: n.state,
      expiresAt: n.expiresAt,
      servers: n.servers.map((s) => s.server).join(", "),
    };
    const runs = rows.filter((r) => r.session === n.name || r.session === n.key);
    if (runs.length) { for (const r of runs) Object.assign(r, facts); }
    else rows.unshift({ session: n.name, ...facts });
  }
  return rows;
}

/** A source over `ctx`'s configuration, schema cache, log index and daemon. */
export class OperationsSource implements ViewSource {
  readonly #ctx: Context;
  #namespaces?: ReturnType<typeof this.loadAll>;
  constructor(ctx: Context) {
    this.#ctx = ctx;
  }

  private async loadAll() {
    const { loadNamespaces } = await loadDiscovery();
    return (await loadNamespaces(this.#ctx)).namespaces;
  }

  async namespaces(): Promise<NamespaceItem[]> {
    this.#namespaces = undefined; // a refresh reads the cache again
    const { namespacesList } = await loadLs();
    const out = await namespacesList.run({}, this.#ctx);
    return out.namespaces.map((r) => ({
      name: r.namespace,
      tools: r.tools,
      state: r.state,
      description: r.description,
    }));
  }

  async tools(namespace: string): Promise<ToolItem[]> {
    this.#namespaces ??= this.loadAll();
    const { pickNamespace } = await loadDiscovery();
    const ns = pickNamespace(await this.#namespaces, namespace);
    // The name a user calls (`get_sum`, as `types` prints it), not the server's (`get-sum`).
    const fns = functionNames(ns.tools);
    return ns.tools.map((t) => ({
      name: fns.get(t.name) ?? t.name,
      description: firstLine(t.description),
    }));
  }

  async signature(namespace: string, tool: string): Promise<string> {
    const { toolsTypes } = await loadDiscoveryOps();
    return (await toolsTypes.run({ target: `${namespace}.${tool}` }, this.#ctx)).declarations;
  }

  async log(limit: number): Promise<Grid> {
    const { logShow } = await loadLogOps();
    const out = await logShow.run({ limit }, this.#ctx);
    return {
      columns: ["ts", "level", "event", "server", "msg"],
      rows: out.records ?? [],
    };
  }

  async stats(kind: StatsKind): Promise<Grid> {
    const { statsShow } = await loadLogOps();
    const out = await statsShow.run({ kind }, this.#ctx);
    // What `mcpx stats volume` says of the disk, said the same way.
    const note = out.disk
      ? (await statsShow.render!({ kind, rows: [], disk: out.disk }, this.#ctx, {})).trim()
      : undefined;
    return { rows: out.rows, ...(note ? { note } : {}) };
  }

  async servers(): Promise<Grid> {
    const [{ daemonStatus }, { statsShow, logShow }, { execute }] = await Promise.all([
      loadDaemonOps(),
      loadLogOps(),
      loadExecute(),
    ]);
    const status = await execute(daemonStatus as never, {}, this.#ctx) as Awaited<
      ReturnType<typeof daemonStatus.run>
    >;
    const rows: Row[] = [];
    const liveIds = new Set<string>();
    for (const s of status.servers) {
      for (const i of s.instances) {
        liveIds.add(i.id);
        rows.push({
          server: s.namespace,
          pid: i.pid,
          state: i.leases > 0 ? "busy" : i.state,
          uptime: formatDuration(i.uptimeMs),
          calls: i.calls,
          why: "",
          key: i.key,
          instance: i.id,
          stderr: i.stderrTail.join("\n"),
        });
      }
    }
    // Processes that ended, from the log: why each stopped, and the pid it had.
    const ended = (await statsShow.run({ kind: "instances", limit: 200 }, this.#ctx)).rows;
    const ready = (await logShow.run({ event: "server.ready", limit: 1000 }, this.#ctx)).records ??
      [];
    const byId = new Map(ready.map((r) => [r.id as string, r]));
    for (const e of ended) {
      const r = byId.get(e.id as string);
      if (r && liveIds.has(r.instance as string) && !e.ended) continue;
      rows.push({
        server: e.server,
        pid: r?.serverPid ?? null,
        // Neither live in this daemon nor ended in the log: its daemon went without saying.
        state: e.ended ? "stopped" : "no end recorded",
        uptime: e.ended && e.started
          ? formatDuration(Date.parse(e.ended as string) - Date.parse(e.started as string))
          : "",
        calls: e.calls,
        why: e.why ?? "",
        started: e.started,
        ended: e.ended,
        instance: r?.instance ?? "",
        id: e.id,
      });
    }
    const note = status.running
      ? `daemon ${status.pid}, up ${formatDuration(status.uptimeMs ?? 0)}, config ${status.config}`
      : `no daemon running for ${status.config}`;
    return {
      // The reason last: it takes the width the others leave (a stop reason is a sentence).
      columns: ["server", "pid", "state", "uptime", "calls", "started", "why"],
      rows,
      note,
    };
  }

  async sessions(): Promise<Grid> {
    const [{ statsShow }, named] = await Promise.all([loadLogOps(), this.namedSessions()]);
    const mine = (await statsShow.run({ kind: "sessions", limit: 200 }, this.#ctx)).rows;
    const theirs = await statsShow.run({ kind: "sessions", opencode: true, limit: 200 }, this.#ctx);
    return {
      // The rest (the session's id, tokens, opencode's parent) is in the row opened in full.
      columns: [
        "session",
        "run",
        "started",
        "calls",
        "failedCalls",
        "exitCode",
        "named",
        "servers",
        "title",
        "cost",
        "script",
      ],
      rows: mergeSessions(mine, theirs.rows, named),
      note: theirs.missing
        ? `mcpx's half only: no opencode database at ${theirs.missing}`
        : `with opencode's ${theirs.rows.length} sessions from ${theirs.source}`,
    };
  }

  /** The daemon's named sessions (`mcpx session ls`), asked only of a daemon that runs. */
  private async namedSessions(): Promise<NamedSession[]> {
    const [{ daemonStatus }, { sessionsList }, { execute }] = await Promise.all([
      loadDaemonOps(),
      loadSessionOps(),
      loadExecute(),
    ]);
    const status = await execute(daemonStatus as never, {}, this.#ctx) as { running: boolean };
    if (!status.running) return [];
    const out = await execute(sessionsList as never, {}, this.#ctx) as {
      sessions: NamedSession[];
    };
    return out.sessions;
  }

  async storage(): Promise<Grid> {
    const [{ storageShow }, { formatBytes }] = await Promise.all([loadUiOps(), loadBound()]);
    const out = await storageShow.run({}, this.#ctx);
    const files = out.parts.reduce((n, p) => n + p.files, 0);
    return {
      columns: ["part", "size", "files", "path"],
      rows: [
        ...out.parts.map((p) => ({ ...p, size: formatBytes(p.bytes) })),
        { part: "total", size: formatBytes(out.bytes), files, bytes: out.bytes, path: "" },
      ],
    };
  }
}
