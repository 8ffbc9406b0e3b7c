/**
 * mcpx as a library: the CLI entry point, the tables every surface is built from, and the errors.
 * @module
 */
export { main } from "./lib/surfaces/cli.ts";
export { captureIo, type Io, realIo } from "./lib/io.ts";
export { type ErrorCode, ERRORS, McpxError } from "./lib/errors.ts";
export { type SettingKey, SETTINGS } from "./lib/settings/table.ts";
export { resolveSettings, Settings } from "./lib/settings/resolve.ts";
export { OPERATIONS } from "./lib/operations/mod.ts";
export type { Operation } from "./lib/operations/define.ts";
export { buildRouter } from "./lib/surfaces/http.ts";
export { VERSION } from "./lib/version.ts";
export { ingest, type LogIndex, openIndex } from "./lib/logindex/index.ts";
export { chain, findRecords, readSql, STATS, stats } from "./lib/logindex/query.ts";
export { OPENCODE_REPORTS, opencodeDbPath, opencodeStats } from "./lib/logindex/opencode.ts";
