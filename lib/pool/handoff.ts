import { messageOf } from "../errors.ts";
import type { StdioHandoff } from "../mcp/types.ts";
import type { Adoption, Carried, Instance, Pool } from "./pool.ts";
import type { ScopeKey } from "./scope.ts";

/** One process a daemon hands its successor (lib/daemon/upgrade.ts). */
export interface HandedInstance {
  /** Its pool's identity: the successor's pool of the same identity takes it. */
  identity: string;
  server: string;
  scope: ScopeKey;
  carried: Carried;
  handed: StdioHandoff;
}

/** A process that could not be handed over and is stopped: its key's next caller is told. */
export interface NotHanded {
  identity: string;
  server: string;
  key: string;
  pid?: number;
  why: string;
}

/** What the registry carries across an upgrade beside its processes. */
export interface RegistryCarry {
  owned: [string, { pid: number; start: string }][];
  runs: [
    number,
    { start: string; runtime?: { pid: number; start: string }; children?: [number, string][] },
  ][];
  ended: string[];
  sessionIds: [string, string][];
}

/**
 * Lets go of every idle process of `active` that can be handed to a successor daemon: each
 * leaves its pool running. The rest (leased, of an `adHoc` pool, or spoken to through the SDK)
 * are listed as not handed. `may` says whether the successor could open a process's pipes.
 */
export async function handOffInstances(
  active: Iterable<Pool>,
  adHoc: Set<Pool>,
  may: (pid: number) => boolean,
): Promise<{ handed: HandedInstance[]; notHanded: NotHanded[] }> {
  const handed: HandedInstance[] = [];
  const notHanded: NotHanded[] = [];
  await Promise.all([...active].flatMap((pool) =>
    pool.instances().map(async (inst) => {
      const server = pool.def.name;
      const base = { identity: pool.def.identity, server, key: inst.key, pid: inst.pid };
      const why = whyNotHanded(inst, adHoc.has(pool), may);
      if (why) {
        notHanded.push({ ...base, why });
        return;
      }
      const carried: Carried = {
        id: inst.id,
        logId: inst.logId,
        startedAt: inst.startedAt,
        calls: inst.calls,
      };
      const out = await pool.handOver(inst);
      if (out) {
        handed.push({
          identity: pool.def.identity,
          server,
          scope: inst.scope,
          carried,
          handed: out,
        });
      } else notHanded.push({ ...base, why: "it was busy with a request of its own" });
    })
  ));
  return { handed, notHanded };
}

/** Why a process cannot be handed over, or undefined when it can be. */
function whyNotHanded(
  inst: Instance,
  adHoc: boolean,
  may: (pid: number) => boolean,
): string | undefined {
  if (adHoc) return "an ad-hoc server is known only to the command that named it";
  if (inst.pid === undefined || !inst.conn?.handoff) {
    return "only mcpx's own stdio connections can be handed over";
  }
  if (inst.leases > 0 || inst.state !== "ready") return "it was still serving a call";
  if (!may(inst.pid)) return "the new daemon could not open its pipes";
  return undefined;
}

/**
 * Takes up the processes a predecessor handed over, each into the pool of its identity in
 * `pools` (one this configuration no longer has is ended), and tells each pool of the keys
 * whose process was not handed. Resolves to the processes taken up and those that were not,
 * with why.
 */
export async function adoptInstances(
  pools: Map<string, Pool>,
  list: { instance: HandedInstance; adoption: Adoption }[],
  notHanded: NotHanded[],
): Promise<{ adopted: HandedInstance[]; failed: { instance: HandedInstance; why: string }[] }> {
  for (const n of notHanded) {
    pools.get(n.identity)?.noteLost(
      n.key,
      `its process was stopped when the daemon was upgraded (${n.why})`,
    );
  }
  const adopted: HandedInstance[] = [];
  const failed: { instance: HandedInstance; why: string }[] = [];
  await Promise.all(list.map(async ({ instance, adoption }) => {
    const pool = pools.get(instance.identity);
    if (!pool) {
      for (const f of Object.values(adoption.pipes)) f.close();
      try {
        Deno.kill(-instance.handed.pid, "SIGKILL");
      } catch { /* gone */ }
      failed.push({ instance, why: "its server is no longer in the configuration" });
      return;
    }
    try {
      await pool.adopt(instance.scope, adoption, instance.carried);
      adopted.push(instance);
    } catch (e) {
      failed.push({ instance, why: messageOf(e) });
    }
  }));
  return { adopted, failed };
}
