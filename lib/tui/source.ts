/**
 * What the browser (`mcpx tui`) reads: an interface, so that the views never see the daemon
 * client and a fake drives them in tests (lib/tui/_testing.ts). The one implementation over mcpx's
 * own operations is lib/tui/real_source.ts.
 */

/** One row of a grid: a record of named cells. */
export type Row = Record<string, unknown>;

/** A grid view's answer: its rows, the columns to show first, and a line said under it. */
export interface Grid {
  rows: Row[];
  /** Columns shown, in order; without it every key of the rows, in the order they appear. */
  columns?: string[];
  /** A line under the grid (what the volume report says of the disk, why a half is missing). */
  note?: string;
}

/** One namespace in the first pane of the tools view. */
export interface NamespaceItem {
  name: string;
  /** Tools it shows, or null when it was never listed. */
  tools: number | null;
  state: string;
  description: string;
}

/** One tool in the second pane. */
export interface ToolItem {
  name: string;
  description: string;
}

/** The reports the stats view cycles through with `d`, in order. */
export const STATS_KINDS = ["calls", "servers", "errors", "sessions", "slowest", "volume"] as const;
/** One report of the stats view. */
export type StatsKind = (typeof STATS_KINDS)[number];

/** Everything the six views read. Each method answers one view or pane; none is cached here. */
export interface ViewSource {
  /** The namespaces, from configuration and schema cache. */
  namespaces(): Promise<NamespaceItem[]>;
  /** One namespace's tools. */
  tools(namespace: string): Promise<ToolItem[]>;
  /** One tool's signature, as `mcpx types ns.tool` prints it. */
  signature(namespace: string, tool: string): Promise<string>;
  /** The newest `limit` log records, oldest first. */
  log(limit: number): Promise<Grid>;
  /** One report of `mcpx stats`. */
  stats(kind: StatsKind): Promise<Grid>;
  /** Server processes: those running, with pid and uptime, and those that stopped, with why. */
  servers(): Promise<Grid>;
  /** Sessions: what mcpx saw, merged with what opencode recorded where it is present. */
  sessions(): Promise<Grid>;
  /** What every part of mcpx's state and cache costs on disk. */
  storage(): Promise<Grid>;
}
