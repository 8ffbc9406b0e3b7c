import { messageOf } from "../errors.ts";
import type { ServerDef } from "../config/servers.ts";
import type { ToolInfo } from "../mcp/types.ts";
import { bounded } from "../_bounded.ts";
import type { Pool } from "./pool.ts";
import { type Caller, scopeKey } from "./scope.ts";

/** At most this many servers are started at once by a refresh (`mcpx refresh`, `mcpx doctor`). */
export const REFRESH_PARALLEL = 8;

/** One namespace's tools as a refresh listed them (its filters applied), or why it could not. */
export interface Refreshed {
  namespace: string;
  tools?: ToolInfo[];
  error?: string;
}

/**
 * Lists the tools of every enabled entry's pool again (`Registry.refresh`), once per pool and at
 * most {@linkcode REFRESH_PARALLEL} at once: a ready process is asked, and `listed` told what it
 * said; where none runs a short-lived instance is started (its pool tells what it lists). Each
 * namespace sees only the tools its filters show. An `"envFrom": "caller"` server is started
 * with the values `caller` sent.
 */
export async function refreshPools(
  entries: Iterable<{ def: ServerDef; pool: Pool }>,
  listed: (pool: Pool, tools: ToolInfo[]) => void,
  caller: Caller,
): Promise<Refreshed[]> {
  const byPool = new Map<Pool, Promise<{ tools?: ToolInfo[]; error?: string }>>();
  const listOne = async (p: Pool) => {
    const live = p.instances().find((i) => i.state === "ready" && i.conn);
    try {
      if (live) {
        live.tools = await live.conn!.listTools();
        listed(p, live.tools);
        return { tools: live.tools };
      }
      p.clearCooldown();
      const env = p.def.envFrom === "caller" ? scopeKey(p.def, caller, () => undefined).env : {};
      const lease = await p.acquire(
        { key: `refresh:${crypto.randomUUID()}`, ephemeral: true, env },
        p.def.pool.startTimeoutMs,
      );
      lease.release();
      return { tools: lease.instance.tools };
    } catch (e) {
      return { error: messageOf(e) };
    }
  };
  const enabled = [...entries].filter((e) => !e.def.disabled);
  const gate = bounded(REFRESH_PARALLEL);
  for (const { pool } of enabled) {
    if (!byPool.has(pool)) byPool.set(pool, gate(() => listOne(pool)));
  }
  return await Promise.all(enabled.map(async ({ def, pool }) => {
    const got = await byPool.get(pool)!;
    return got.tools
      ? {
        namespace: def.namespace,
        tools: def.curateTools(got.tools.filter((t) => def.showsTool(t.name))),
      }
      : { namespace: def.namespace, error: got.error };
  }));
}
