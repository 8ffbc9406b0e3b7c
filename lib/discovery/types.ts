import type { ServerDef } from "../config/servers.ts";
import type { CachedServer } from "../cache/schema_cache.ts";
import type { ToolInfo } from "../mcp/types.ts";

/** One namespace as discovery sees it: its definition, what the cache knows, its visible tools. */
export interface Namespace {
  def: ServerDef;
  cached?: CachedServer;
  /** The tools this namespace shows (filters applied), sorted by name; empty when unlisted. */
  tools: ToolInfo[];
  state: "ready" | "error" | "unlisted" | "disabled";
}
