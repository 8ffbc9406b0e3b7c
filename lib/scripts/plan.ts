// Planning a run: everything knowable before anything starts (the script, its variables, its
// runtime and timeout, the command that starts it), every problem found reported at once.

import { secureCacheDir } from "../cache/secure.ts";
import { stripTypeScriptTypes } from "node:module";
import { dirname, join, resolve } from "../_path.ts";
import { McpxError, messageOf } from "../errors.ts";
import { cacheDir, logsDir, stateDir } from "../paths.ts";
import { VERSION } from "../version.ts";
import { exists } from "../_fs.ts";
import type { Context } from "../context.ts";
import { readDirectives } from "./directives.ts";
import {
  addDeclared,
  builtinFills,
  DEFAULT_TEMPLATE,
  expandTemplate,
  type FillOptions,
  layeredSource,
  readSource,
} from "./template.ts";
import { parseEnvFile, parseEnvPair } from "./env_vars.ts";
import {
  isPathShaped,
  missingEntryWarnings,
  type ResolvedScript,
  resolveScript,
  type SearchOptions,
} from "./resolve.ts";
import { requireScriptTrusted } from "./trust.ts";
import {
  isCompiled,
  launcherDir,
  type RuntimeCommand,
  runtimeCommand,
  type RuntimeName,
} from "./select.ts";

/** What `mcpx run` and `mcpx exec` ask for. */
export interface RunRequest {
  /** A script name or path (`run`). */
  script?: string;
  /** Program text (`exec`); `-` has already been read from stdin. */
  code?: string;
  args: readonly string[];
  export?: string;
  /** How log records are shown (`--format`); logging.format when absent. */
  format?: "text" | "logfmt" | "json";
  /** `KEY=VALUE` pairs, in order; later ones win. */
  env?: readonly string[];
  envFile?: string;
  /** Whether the program came from stdin, which the script then cannot read. */
  stdinUsed?: boolean;
  /** Run the script with no launcher at all (`--no-launcher`). */
  noLauncher?: boolean;
  /** An ad-hoc server the run gets as a namespace (`--stdio`, `--url`, `--name`). */
  adHoc?: { stdio?: string; url?: string; name?: string };
}

/** What a run will do, settled before it starts. */
export interface RunPlan {
  /** The script `run` found; absent for `exec`. */
  script?: ResolvedScript;
  /** The script's text (or the exec program), for its directives and its client. */
  text: string;
  /** The variables of --env-file and --env, later ones winning. */
  env: Record<string, string>;
  runtime: RuntimeName;
  timeoutMs: number;
  /** How to start a subprocess runtime; absent for a Worker. */
  command?: RuntimeCommand;
  /** The cache folder (the launcher's copy, emitted files, exec programs, clients). */
  cache: string;
  /** The generated launcher program for a script at a path; absent under --no-launcher. */
  program?: (script: string) => string;
  /** Check the program's types instead of running it (`--typecheck`). */
  typecheck: boolean;
}

/**
 * The names a module's text exports, or undefined when that cannot be told from the text (an
 * `export *`). Comments are not parsed: a commented-out export counts, which only ever lets a run
 * go ahead to be refused by the launcher itself.
 */
export function exportNames(text: string): string[] | undefined {
  if (/^\s*export\s*\*/m.test(text)) return undefined;
  const names = new Set<string>();
  for (
    const m of text.matchAll(/^\s*export\s+(?:declare\s+)?(?:async\s+)?function\s*\*?\s*([\w$]+)/gm)
  ) {
    names.add(m[1]);
  }
  for (const m of text.matchAll(/^\s*export\s+(?:const|let|var|class)\s+([\w$]+)/gm)) {
    names.add(m[1]);
  }
  for (const m of text.matchAll(/^\s*export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
    for (const part of m[1].split(",")) {
      const name = part.trim().split(/\s+as\s+/).pop()?.trim();
      if (name) names.add(name);
    }
  }
  if (/^\s*export\s+default\b/m.test(text)) names.add("default");
  return [...names].sort();
}

const AsyncFunction = (async function () {}).constructor as FunctionConstructor;

/**
 * The module `mcpx exec` runs. Code with static imports or exports is a module as written;
 * otherwise it becomes the body of the default export, so `return x` prints x, and a single
 * expression is returned as it is (`mcpx exec 'fixture.echo({ text: "hi" })'`).
 */
export function execModule(code: string): { text: string; lineOffset: number } {
  if (/^\s*(import\s*[\w*{"'$]|export\s)/m.test(code)) return { text: code, lineOffset: 0 };
  let expression = false;
  try {
    new AsyncFunction(`return (\n${code}\n)`);
    expression = true;
  } catch { /* statements, or TypeScript syntax */ }
  const text = expression
    ? `export default async function () { return (\n${code}\n); }\n`
    : `export default async function () {\n${code}\n}\n`;
  return { text, lineOffset: 1 };
}

/** Marks where the program sits in the wrapper, so that it can be found again after transforming. */
const BODY_MARK = "/*mcpx:exec-body*/";

/**
 * Why an exec program that {@linkcode execModule} wraps in a function does not stand alone as
 * that function's body (`}{` closes the wrapper early and would run as something else), or
 * undefined when it does. A program that does not parse even wrapped is left to the runtime,
 * which names the line and column.
 */
export function execSyntaxError(code: string): string | undefined {
  if (execModule(code).lineOffset === 0) return undefined; // a module, run as written
  let js: string;
  try {
    js = stripTypeScriptTypes(
      `async function body() {\n${BODY_MARK}\n${code}\n${BODY_MARK}\n}\n`,
      { mode: "transform" },
    );
  } catch {
    return undefined;
  }
  const start = js.indexOf(BODY_MARK);
  const end = js.lastIndexOf(BODY_MARK);
  if (start < 0 || end <= start) return undefined;
  // import.meta parses in the module the body is run in, not in a Function.
  const body = js.slice(start + BODY_MARK.length, end).replace(/\bimport\s*\.\s*meta\b/g, "_m");
  try {
    new AsyncFunction(body);
    return undefined;
  } catch (e) {
    return e instanceof SyntaxError ? `SyntaxError: ${e.message}` : undefined;
  }
}

/**
 * Points the relative imports of an exec program at the caller's folder: the program is written
 * to the cache, but `./helper.ts` means the helper beside the caller. `./mcpx-client.ts` stays,
 * since the client is written beside the program. Only string literals after `from`, `import`
 * and `import(` are touched.
 */
export function rebaseImports(text: string, cwd: string): string {
  return text.replace(
    /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.\.?\/[^"'\n]*)\2/g,
    (whole, lead: string, quote: string, spec: string) =>
      spec === "./mcpx-client.ts"
        ? whole
        : `${lead}${quote}${new URL(`file://${resolve(cwd, spec)}`).href}${quote}`,
  );
}

function problemsError(problems: McpxError[]): McpxError {
  if (problems.length === 1) return problems[0];
  return new McpxError(
    problems[0].code,
    `${problems.length} problems before running:\n${
      problems.map((p) => `  - ${p.message}${p.hint ? ` (${p.hint})` : ""}`).join("\n")
    }`,
  );
}

async function capture<T>(problems: McpxError[], fn: () => T | Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof McpxError) problems.push(e);
    else throw e;
    return undefined;
  }
}

/**
 * Settles what a run will do. Every problem found (a script that is not there, a bad variable,
 * a runtime that is missing) is collected, and all of them are thrown together.
 * @throws {McpxError} the one problem found, or one listing them all.
 */
export async function planRun(ctx: Context, request: RunRequest): Promise<RunPlan> {
  const { io } = ctx;
  const settings = await ctx.settings();
  const problems: McpxError[] = [];

  // The script, and the folder its client is written to.
  const pathsSource = settings.describe("paths.scripts").source;
  const search: SearchOptions = {
    cwd: io.cwd,
    env: io.env,
    paths: settings.get("paths.scripts"),
    pathsBase: pathsSource.kind === "file" ? dirname(pathsSource.where) : io.cwd,
    allowOverlap: settings.get("plumbing.allowTsJsOverlap"),
  };
  if (request.script !== undefined && !isPathShaped(request.script)) {
    for (const w of missingEntryWarnings(search)) io.err(`mcpx: warning: ${w}\n`);
  }
  const script = request.script !== undefined
    ? await capture(problems, () => resolveScript(request.script!, search))
    : undefined;
  // A script found by name in a folder that is not trusted is refused before anything else.
  if (script?.named) {
    requireScriptTrusted(script, {
      env: io.env,
      stateDir: stateDir(ctx.boot, io.env),
      trustAll: ctx.boot.get("trust.all"),
      trustedConfigs: await ctx.trustedConfigs(),
    });
  }
  let text = request.code ?? "";
  if (script) text = await Deno.readTextFile(script.path).catch(() => "");

  // Variables: the file first, then each --env in order.
  const env: Record<string, string> = {};
  if (request.envFile !== undefined) {
    const path = resolve(io.cwd, request.envFile);
    await capture(problems, async () => {
      let content: string;
      try {
        content = await Deno.readTextFile(path);
      } catch (e) {
        throw new McpxError(
          "USAGE",
          `Cannot read --env-file "${request.envFile}": ${messageOf(e)}`,
        );
      }
      Object.assign(env, parseEnvFile(content, request.envFile!));
    });
  }
  for (const pair of request.env ?? []) {
    await capture(problems, () => {
      const [k, v] = parseEnvPair(pair);
      env[k] = v;
    });
  }
  const syntax = request.code !== undefined ? execSyntaxError(request.code) : undefined;
  if (syntax) {
    problems.push(new McpxError("SCRIPT_FAILED", `Cannot run the exec program: ${syntax}`));
  }
  if (
    request.export !== undefined && request.export !== "default" &&
    !/^[A-Za-z_$][\w$]*$/.test(request.export)
  ) {
    problems.push(
      new McpxError("USAGE", `--export "${request.export}" is not a JavaScript identifier`),
    );
  }

  // The runtime and the timeout: a flag wins, then the script's own directive, then the setting.
  const where = script ? (script.named ? script.path : request.script!) : "exec";
  const directives = (await capture(problems, () => readDirectives(text, where))) ?? {};
  const chosen = (key: "script.runtime" | "script.timeout") =>
    settings.describe(key).source.kind === "flag";
  let runtime: RuntimeName = chosen("script.runtime")
    ? settings.get("script.runtime") as RuntimeName
    : directives.runtime ?? settings.get("script.runtime") as RuntimeName;
  const timeoutMs = chosen("script.timeout")
    ? settings.get("script.timeout")
    : directives.timeoutMs ?? settings.get("script.timeout");
  const cache = secureCacheDir(cacheDir(ctx.boot, io.env));
  let command: RuntimeCommand | undefined;
  if (runtime === "worker" && isCompiled()) {
    // A compiled mcpx cannot load a user's file into a Worker: run it under the first runtime
    // found on PATH instead.
    for (const candidate of ["deno", "bun", "node"] as const) {
      try {
        command = await runtimeCommand(candidate, {
          env: io.env,
          entry: join(await launcherDir(cache, VERSION), "main.ts"),
          script: script?.path ?? io.cwd,
          emitDir: join(cache, "emitted"),
        });
        runtime = candidate;
        break;
      } catch { /* try the next */ }
    }
    if (!command) {
      problems.push(
        new McpxError("NOT_FOUND", "This mcpx binary runs scripts with deno, bun or node", {
          hint: "Install one of them (`npm install -g deno`), or run mcpx itself under `deno run`",
        }),
      );
    }
  } else if (runtime !== "worker") {
    command = await capture(
      problems,
      async () =>
        runtimeCommand(runtime as Exclude<RuntimeName, "worker">, {
          env: io.env,
          entry: join(await launcherDir(cache, VERSION), "main.ts"),
          script: script?.path ?? io.cwd,
          emitDir: join(cache, "emitted"),
        }),
    );
  }

  // --export: a name the script's text does not export is refused now, with what it does export.
  if (script && request.export !== undefined && request.export !== "default") {
    const names = exportNames(text);
    if (names && !names.includes(request.export)) {
      problems.push(
        new McpxError(
          "USAGE",
          `There is no export "${request.export}" in "${request.script}"; ${
            names.length ? `it exports ${names.join(", ")}` : "it exports nothing"
          }`,
        ),
      );
    }
  }

  // The log folder (<state>/logs, docs/logging.md): created when missing, refused when something
  // else is in its place.
  const logDir = logsDir(ctx.boot, io.env);
  try {
    if (!Deno.statSync(logDir).isDirectory) {
      problems.push(
        new McpxError("USAGE", `The log directory "${logDir}" is a file, not a folder`, {
          hint: "Move the file away; mcpx keeps its JSONL logs there",
        }),
      );
    }
  } catch {
    await capture(problems, () => {
      try {
        Deno.mkdirSync(logDir, { recursive: true, mode: 0o700 });
      } catch (e) {
        throw new McpxError(
          "USAGE",
          `Cannot create the log directory "${logDir}": ${messageOf(e)}`,
        );
      }
    });
  }

  // The launcher: every hook read and the template filled now, so that a bad one stops the run
  // before anything starts.
  let program: RunPlan["program"];
  if (!request.noLauncher) {
    const probe = settings.get("plumbing.sourceProbePaths");
    const read = (key: "script.launcher", flag: string) => {
      const value = settings.get(key);
      if (!value) return undefined;
      return capture(problems, () => readSource(value, flag, io.cwd, probe).text);
    };
    // The hooks layer: a `-` line (a file's null) splices in what the layers below say.
    const hook = async (
      key: "script.before" | "script.prefix" | "script.onError" | "script.suffix",
      flag: string,
    ) => {
      const d = settings.describe(key);
      const layers = [d.text, ...d.overrode.map((o) => o.text)];
      const text = await capture(problems, () => layeredSource(layers, flag, io.cwd, probe));
      return text ? text : undefined;
    };
    const hooks: Omit<FillOptions, "script"> = {
      capture: settings.get("script.captureConsole"),
      before: await hook("script.before", "--before"),
      prefix: await hook("script.prefix", "--prefix"),
      onError: await hook("script.onError", "--on-error"),
      suffix: await hook("script.suffix", "--suffix"),
    };
    const launcherValue = settings.get("script.launcher");
    const template = launcherValue ? await read("script.launcher", "--launcher") : DEFAULT_TEMPLATE;
    const list = (key: "paths.placeholders" | "plumbing.launcherPlaceholderRepeat") =>
      settings.get(key).split(",").map((x) => x.trim()).filter(Boolean);
    // A placeholder file or folder that is not there is one warning, and the rest still count.
    const declared = list("paths.placeholders").filter((entry) => {
      if (exists(resolve(io.cwd, entry))) return true;
      io.err(
        `mcpx: warning: paths.placeholders names "${
          resolve(io.cwd, entry)
        }", which does not exist: it was skipped\n`,
      );
      return false;
    });
    const make = (scriptPath: string) => {
      const fills = builtinFills({ ...hooks, script: scriptPath });
      addDeclared(fills, declared, io.cwd);
      return expandTemplate(template ?? DEFAULT_TEMPLATE, fills, {
        repeat: list("plumbing.launcherPlaceholderRepeat"),
        origin: launcherValue
          ? `--launcher "${launcherValue.split("\n")[0]}"`
          : "the built-in launcher",
      });
    };
    if (template !== undefined) {
      await capture(problems, () => make(script?.path ?? "/exec.ts"));
      program = make;
    }
  }
  const typecheck = settings.get("script.typecheck");

  if (problems.length > 0) throw problemsError(problems);
  return { script, text, env, runtime, timeoutMs, command, cache, program, typecheck };
}
