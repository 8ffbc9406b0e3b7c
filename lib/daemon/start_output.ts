// What a command that started a daemon reads of the daemon's standard error while it waits for it
// (lib/daemon/client.ts): Deno fetching npm packages into an empty cache, the daemon's two marks
// around loading its modules, and the error Deno printed when it could not start at all.

/** Written by a daemon a command started before it loads its modules (lib/operations/daemon_ops.ts). */
export const DAEMON_LOADING = "mcpx-daemon: loading its modules";
/** Written once they are loaded: the command's daemon.startTimeout runs from here. */
export const DAEMON_LOADED = "mcpx-daemon: modules loaded";

/** What a starting daemon's standard error says of its start so far. */
export interface StartOutput {
  /** How many `Download …` lines Deno wrote: npm metadata and tarballs fetched into its cache. */
  fetched: number;
  /** The npm package of the last download. */
  lastPackage?: string;
  /** Whether the daemon began loading its modules, and whether it has them. */
  loading: boolean;
  loaded: boolean;
  /** Deno's (or mcpx's) first error line with its first cause, else the last other line. */
  lastLine?: string;
}

/** Reads {@linkcode StartOutput} from the text of a daemon's standard error. */
export function startOutput(text: string): StartOutput {
  const out: StartOutput = { fetched: 0, loading: false, loaded: false };
  let error: string | undefined;
  let other: string | undefined;
  let cause = false;
  // deno-lint-ignore no-control-regex
  for (const raw of text.replace(/\x1b\[[0-9;]*m/g, "").split("\n")) {
    const line = raw.trim();
    if (!line) continue;
    if (cause) {
      // The first cause Deno chains under its error (`0: error sending request …`).
      const first = /^0: (.*)/.exec(line)?.[1];
      if (first && first !== "<unknown>") error += ` (${first})`;
      cause = false;
    }
    const url = /^Download (https?:\/\/\S+)/.exec(line)?.[1];
    if (url) {
      out.fetched++;
      try {
        out.lastPackage = decodeURIComponent(new URL(url).pathname).slice(1).split("/-/")[0];
      } catch { /* not a URL after all */ }
    } else if (line === DAEMON_LOADING) out.loading = true;
    else if (line === DAEMON_LOADED) out.loaded = true;
    else if (/^Stack backtrace:|^\d+: |^at /.test(line)) continue;
    else if (error === undefined && /^(error|mcpx): /.test(line)) {
      error = line.replace(/^mcpx: /, "");
      cause = true;
    } else other = line;
  }
  out.lastLine = error ?? other;
  return out;
}

/** How long the daemon has been starting and what it waits for, as one line. */
export function startProgress(elapsedMs: number, seen: StartOutput): string {
  const secs = (elapsedMs / 1000).toFixed(0);
  if (seen.loading && !seen.loaded) {
    return seen.fetched > 0
      ? `mcpx: starting the daemon (${secs} s): Deno is fetching its npm packages into an empty cache, once (${seen.fetched} downloads, last ${seen.lastPackage})`
      : `mcpx: starting the daemon (${secs} s): Deno is loading its modules`;
  }
  return `mcpx: starting the daemon (${secs} s): waiting for it to answer`;
}
