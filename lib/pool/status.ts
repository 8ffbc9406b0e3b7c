import type { ServerDef } from "../config/servers.ts";
import type { Pool, PoolStatus } from "./pool.ts";
import { scopeOf } from "./scope.ts";

// What the registry shows of its pools: each namespace's status, the live state the daemon keeps
// for `mcpx ls` and `mcpx run`, the server processes, and the processes serving each session.
// `namespaces` is the registry's table of the namespaces leasing from each pool, in
// configuration order; `active` its pools with at least one instance.

/** What the daemon keeps for `mcpx ls` and `mcpx run` to read without asking it. */
export interface LiveState {
  /** Live processes per namespace. */
  live: Record<string, number>;
  /** The scope key of every live process (`global`, `session:<id>`, …). */
  keys: string[];
}

/** What `status` shows of one namespace. */
export type NamespaceStatus = PoolStatus & {
  name: string;
  sharing: string;
  scope: string;
  transport: string;
  sharedWith: string[];
};

/**
 * One namespace's state; a pool shared by several names lists its processes under the first
 * (the first of `seen`'s walk to reach it), and `sharedWith` there names the others, while each
 * other names that first one only.
 */
export function namespaceStatus(
  { def, pool }: { def: ServerDef; pool: Pool },
  namespaces: Map<Pool, string[]>,
  seen: Set<Pool>,
): NamespaceStatus {
  const st = pool.status();
  const first = !seen.has(pool);
  seen.add(pool);
  const spaces = namespaces.get(pool)!;
  return {
    ...st,
    namespace: def.namespace,
    state: def.disabled ? "disabled" : st.state,
    name: def.name,
    sharing: def.pool.sharing,
    scope: def.pool.scope,
    transport: def.transport,
    sharedWith: first ? spaces.filter((n) => n !== def.namespace) : [spaces[0]],
    instances: first ? st.instances : [],
    queue: first ? st.queue : { waiting: 0, oldestWaitMs: 0 },
  };
}

/**
 * Live processes per namespace, as `status()` counts them (a shared pool's under its first
 * namespace; a namespace with none is left out), and the keys they serve. Linear in pools and
 * processes: it runs whenever a process starts or stops.
 */
export function liveStateOf(active: Iterable<Pool>, namespaces: Map<Pool, string[]>): LiveState {
  const live: Record<string, number> = {};
  const keys = new Set<string>();
  for (const pool of active) {
    const instances = pool.instances();
    const spaces = namespaces.get(pool);
    // A pool a reload dropped keeps its processes only until they are stopped.
    if (instances.length === 0 || !spaces) continue;
    live[spaces[0]] = instances.length;
    for (const i of instances) keys.add(i.key);
  }
  return { live, keys: [...keys] };
}

/** Every server process running now: its pid, its server's name and its instance. */
export function childrenOf(
  active: Iterable<Pool>,
): { pid: number; server: string; instance: string }[] {
  const out: { pid: number; server: string; instance: string }[] = [];
  for (const p of active) {
    for (const i of p.instances()) {
      if (i.pid !== undefined) out.push({ pid: i.pid, server: p.def.name, instance: i.id });
    }
  }
  return out;
}

/** One process serving a session: its pool's first namespace, its instance and its pid. */
export interface SessionProcess {
  server: string;
  instance: string;
  pid: number | null;
}

/** The processes serving each session (`session:<name>` keys), by the session's name. */
export function sessionInstancesOf(
  active: Iterable<Pool>,
  namespaces: Map<Pool, string[]>,
): Map<string, SessionProcess[]> {
  const out = new Map<string, SessionProcess[]>();
  for (const p of active) {
    for (const i of p.instances()) {
      const scope = scopeOf(i.key);
      if (!scope.startsWith("session:")) continue;
      const name = scope.slice("session:".length);
      let list = out.get(name);
      if (!list) out.set(name, list = []);
      const server = namespaces.get(p)?.[0] ?? p.def.name;
      list.push({ server, instance: i.id, pid: i.pid ?? null });
    }
  }
  return out;
}
