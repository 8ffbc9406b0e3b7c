/**
 * Under `deno run main.ts`, React and its reconciler pick their development builds unless NODE_ENV
 * says production: those check every render and load far more code. Imported first by
 * lib/tui/run.ts, so that it is set before either is evaluated; the browser's process starts
 * nothing that would inherit it. (The bundle has already chosen: `deno bundle` keeps only the
 * development builds unless it minifies, docs/dependencies.md.)
 */
import process from "node:process";

process.env.NODE_ENV ??= "production";
