/**
 * Holds the surfaces to the tables, in every direction: each operation is a command the parser
 * accepts, a `/v1` route the router answers (or says why not), documented in help and in the
 * generated docs; and nothing the surfaces accept is undeclared.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { Registry } from "../lib/pool/registry.ts";
import { Broker } from "../lib/questions/broker.ts";
import { serverDefs } from "../lib/config/servers.ts";
import { cacheIdentity, writeCache } from "../lib/cache/schema_cache.ts";
import { fingerprintConfig } from "../lib/config/fingerprint.ts";
import { loadConfig } from "../lib/config/load.ts";
import type { McpConnection } from "../lib/mcp/types.ts";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { Context, type DaemonHandle } from "../lib/context.ts";
import { McpxError } from "../lib/errors.ts";
import { captureIo } from "../lib/io.ts";
import { type Operation, paramFlag, type ParamSpec } from "../lib/operations/define.ts";
import { OPERATIONS } from "../lib/operations/mod.ts";
import { envName, flagName, isPlumbing, SETTINGS } from "../lib/settings/table.ts";
import { CLI_HOST, parseArgs } from "../lib/surfaces/cli.ts";
import {
  commandHelp,
  commandsHelp,
  COMMON_OPTIONS,
  HELP_GROUPS,
  HELP_WIDTH,
  mainHelp,
  optionsHelp,
  usage,
} from "../lib/surfaces/help.ts";
import { buildRouter } from "../lib/surfaces/http.ts";
import { NamedSessions } from "../lib/sessions/named.ts";

type Ops = readonly Operation[];
type Routed = Operation & { http: { method: "GET" | "POST"; path: string } };

const SETTING_KEYS = Object.keys(SETTINGS);
const SETTING_FLAGS = new Set(SETTING_KEYS.map(flagName));
/** Flags the parser reserves before looking at settings or parameters. */
const RESERVED_FLAGS = new Set(["-h", "--help", "-V", "--version", "--"]);

const hasRoute = (op: Operation): op is Routed => "method" in op.http;
const templateNames = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

/** A value the parser and the router accept for a parameter. */
function validValue(p: ParamSpec): string {
  if (p.type === "enum") return p.values![0];
  if (p.type === "integer") return "1";
  if (p.type === "boolean") return "true";
  if (p.type === "json") return "{}";
  return "x";
}

function duplicates(items: readonly string[]): string[] {
  return [...new Set(items.filter((item, i) => items.indexOf(item) !== i))];
}

/** Operation ids: unique, and `noun.verb`. */
function idProblems(ops: Ops): string[] {
  const out = duplicates(ops.map((op) => op.id)).map((id) => `id ${id} is declared twice`);
  for (const op of ops) {
    if (!/^[a-z][a-z0-9-]*\.[a-z][a-z0-9-]*$/.test(op.id)) out.push(`id ${op.id} is not noun.verb`);
  }
  return out;
}

/** Commands: every operation has one, of lower-case words, and no two share their words. */
function commandProblems(ops: Ops): string[] {
  const out: string[] = [];
  for (const op of ops) {
    if (op.cli.command.length === 0) out.push(`${op.id} has no command`);
    for (const word of op.cli.command) {
      if (!/^[a-z][a-z0-9-]*$/.test(word)) out.push(`${op.id}: bad command word "${word}"`);
    }
  }
  const words = ops.map((op) => op.cli.command.join(" "));
  out.push(...duplicates(words).map((w) => `command "mcpx ${w}" is declared twice`));
  // A command that is a prefix of another makes the longer one unreachable or ambiguous, unless
  // the shorter takes no words after it (`config` beside `config import`: the next word decides).
  for (const a of ops) {
    for (const b of ops) {
      if (a === b || a.cli.command.length >= b.cli.command.length) continue;
      const takesWords = a.cli.positionals !== undefined || a.params.some((p) => p.positional);
      if (takesWords && a.cli.command.every((w, i) => b.cli.command[i] === w)) {
        out.push(`command of ${a.id} is a prefix of ${b.id}'s`);
      }
    }
  }
  return out;
}

/** Routes: a `/v1` route or a reason; unique by method and path; templates name parameters. */
function routeProblems(ops: Ops): string[] {
  const out: string[] = [];
  for (const op of ops) {
    if (!hasRoute(op)) {
      const reason = (op.http as { none?: unknown }).none;
      if (typeof reason !== "string" || reason.trim() === "") {
        out.push(`${op.id} has neither a route nor a reason for none`);
      }
      continue;
    }
    if (!["GET", "POST"].includes(op.http.method)) out.push(`${op.id}: method ${op.http.method}`);
    if (!op.http.path.startsWith("/v1/")) out.push(`${op.id}: ${op.http.path} is not under /v1/`);
    for (const name of templateNames(op.http.path)) {
      const p = op.params.find((q) => q.name === name);
      if (!p) out.push(`${op.id}: {${name}} in ${op.http.path} is not a parameter`);
      else if (!p.required) out.push(`${op.id}: {${name}} is a path segment but optional`);
    }
  }
  const keys = ops.filter(hasRoute).map((op) => `${op.http.method} ${op.http.path}`);
  // Templates count as one shape: GET /v1/a/{x} and GET /v1/a/{y} collide.
  const shapes = keys.map((k) => k.replace(/\{\w+\}/g, "{}"));
  out.push(...duplicates(shapes).map((k) => `route ${k} is declared twice`));
  return out;
}

/** `where`: daemon operations reach the daemon through their route; `running` ones need offline. */
function whereProblems(ops: Ops): string[] {
  const out: string[] = [];
  for (const op of ops) {
    if (op.where === "local") continue;
    if (!hasRoute(op)) out.push(`${op.id} runs in the daemon but has no route to reach it`);
    if (op.where.daemon === "running" && typeof op.offline !== "function") {
      out.push(`${op.id} runs only in a running daemon but has no offline answer`);
    }
  }
  return out;
}

/** Parameters: unique, their flags shadow no global option, enums list values. */
function paramProblems(ops: Ops): string[] {
  const out: string[] = [];
  for (const op of ops) {
    out.push(...duplicates(op.params.map((p) => p.name)).map((n) => `${op.id}: ${n} twice`));
    let optionalSeen = false;
    for (const p of op.params) {
      if (!/^[a-z][a-zA-Z0-9]*$/.test(p.name)) out.push(`${op.id}: ${p.name} is not camelCase`);
      if (p.doc.trim() === "") out.push(`${op.id}: ${p.name} has no doc`);
      if (p.type === "enum" && !(p.values && p.values.length > 0)) {
        out.push(`${op.id}: enum ${p.name} lists no values`);
      }
      if (p.positional) {
        if (p.required && optionalSeen) out.push(`${op.id}: required ${p.name} after optional`);
        if (!p.required) optionalSeen = true;
        continue;
      }
      const flag = paramFlag(p.name);
      if (SETTING_FLAGS.has(flag) || RESERVED_FLAGS.has(flag)) {
        out.push(`${op.id}: ${flag} shadows a global option`);
      }
      if (p.short && (RESERVED_FLAGS.has(`-${p.short}`) || p.short.length !== 1)) {
        out.push(`${op.id}: -${p.short} is not a free one-letter flag`);
      }
    }
  }
  return out;
}

/** MCP annotations that contradict themselves or the route. */
function mcpProblems(ops: Ops): string[] {
  const out: string[] = [];
  for (const op of ops) {
    if (op.mcp.readOnly && op.mcp.destructive) out.push(`${op.id}: readOnly and destructive`);
    if (hasRoute(op) && op.http.method === "GET" && op.mcp.destructive) {
      out.push(`${op.id}: destructive behind GET`);
    }
  }
  return out;
}

function argsFor(op: Operation): string[] {
  if (op.cli.positionals) return [...op.cli.command, ...(op.cli.example ?? [])];
  const pos = op.params.filter((p) => p.positional && p.required).map(validValue);
  const flags = op.params.filter((p) => p.required && !p.positional).flatMap((p) =>
    p.type === "boolean" ? [paramFlag(p.name)] : [paramFlag(p.name), validValue(p)]
  );
  return [...op.cli.command, ...pos, ...flags];
}

/** The parser: every declared command and option resolves to its operation and parameter. */
function parserProblems(ops: Ops): string[] {
  const out: string[] = [];
  const attempt = (args: string[], check: (r: ReturnType<typeof parseArgs>) => void) => {
    try {
      check(parseArgs(args, ops));
    } catch (error) {
      out.push(`mcpx ${args.join(" ")}: ${error instanceof Error ? error.message : error}`);
    }
  };
  for (const op of ops) {
    const args = argsFor(op);
    attempt(args, (r) => {
      if (r.op !== op) out.push(`mcpx ${args.join(" ")} resolves to ${r.op?.id}, not ${op.id}`);
      if (r.help) out.push(`mcpx ${args.join(" ")} asks for help`);
      for (const p of op.params.filter((q) => q.positional && q.required)) {
        if (r.input[p.name] === undefined) out.push(`${op.id}: <${p.name}> not parsed`);
      }
      for (const name of op.cli.fills ?? []) {
        const p = op.params.find((q) => q.name === name);
        if (!p) out.push(`${op.id}: cli.fills names undeclared ${name}`);
        else if (p.required && r.input[name] === undefined) {
          out.push(`${op.id}: ${name} not filled from the example`);
        }
      }
    });
    attempt([...args, "--help"], (r) => {
      if (r.op !== op || !r.help) out.push(`mcpx ${args.join(" ")} --help is not ${op.id}'s help`);
    });
    for (const p of op.params.filter((q) => !q.positional && !op.cli.fills?.includes(q.name))) {
      const flagArgs = p.type === "boolean"
        ? [...args, paramFlag(p.name)]
        : [...args, paramFlag(p.name), validValue(p)];
      attempt(flagArgs, (r) => {
        if (r.op !== op || r.input[p.name] === undefined) {
          out.push(`${op.id}: ${paramFlag(p.name)} is not parsed into ${p.name}`);
        }
      });
    }
  }
  return out;
}

/** Help text with its line breaks undone, to look for a sentence the help wraps. */
const flat = (text: string) => text.replace(/\s+/g, " ");

/** Help: every parameter, with its doc, in its command's help; nothing undeclared listed. */
function helpProblems(ops: Ops): string[] {
  const out: string[] = [];
  for (const op of ops) {
    const raw = commandHelp(op, ops);
    const help = flat(raw);
    if (!raw.includes(`Usage: mcpx ${op.cli.command.join(" ")}`)) {
      out.push(`${op.id}: help does not show its usage`);
    }
    if (!help.includes(op.summary)) out.push(`${op.id}: help lacks the summary`);
    for (const p of op.params) {
      const filled = op.cli.fills?.includes(p.name) ?? false;
      const flag = p.on ? `--no-${paramFlag(p.name).slice(2)}` : paramFlag(p.name);
      const shown = p.positional || filled ? `<${p.name}>` : flag;
      if (!help.includes(shown)) out.push(`${op.id}: help lacks ${shown}`);
      if (p.short && !help.includes(`-${p.short}, ${flag}`)) {
        out.push(`${op.id}: help lacks -${p.short}`);
      }
      if (!help.includes(flat(p.doc))) out.push(`${op.id}: help lacks the doc of ${p.name}`);
      if (
        p.positional && !op.cli.usage &&
        !usage(op).includes(shown.replace(/^<(.*)>$/, p.required ? "<$1>" : "[$1]"))
      ) {
        out.push(`${op.id}: usage lacks ${shown}`);
      }
      for (const v of p.type === "enum" ? p.values! : []) {
        if (!help.includes(v)) out.push(`${op.id}: help lacks value ${v} of ${p.name}`);
      }
    }
    const section = raw.split("Arguments and options:\n")[1]?.split("\n\n")[0] ?? "";
    const declared = new Set(
      op.params.filter((p) => !p.positional && !op.cli.fills?.includes(p.name)).flatMap((p) => [
        paramFlag(p.name),
        `--no-${paramFlag(p.name).slice(2)}`,
      ]),
    );
    for (const flag of section.match(/--[a-z][a-z0-9-]*/g) ?? []) {
      if (!declared.has(flag)) out.push(`${op.id}: help lists undeclared ${flag}`);
    }
    const examples = op.cli.examples ?? [];
    if (examples.length < 2 || examples.length > 3) {
      out.push(`${op.id}: ${examples.length} examples, not two or three`);
    }
    for (const [line, doc] of examples) {
      if (!raw.includes(`  ${line}\n`)) out.push(`${op.id}: help lacks the example ${line}`);
      if (!help.includes(flat(doc))) out.push(`${op.id}: help lacks what ${line} does`);
    }
    for (const line of raw.split("\n")) {
      if (line.length > HELP_WIDTH) out.push(`${op.id}: a help line of ${line.length} columns`);
    }
  }
  return out;
}

/** A command line's words as a POSIX shell splits them, up to a redirection (`>`, `<`). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g)) {
    if (m[3] !== undefined && /^(\d?>>?|<)$/.test(m[3])) break;
    words.push(m[1] ?? m[2]?.replace(/\\(.)/g, "$1") ?? m[3]);
  }
  return words;
}

/** Examples: each is a command line the parser takes as its operation's, with no mistake. */
function exampleProblems(ops: Ops): string[] {
  const out: string[] = [];
  for (const op of ops) {
    for (const [line] of op.cli.examples ?? []) {
      const [program, ...args] = shellWords(line);
      if (program !== "mcpx") out.push(`${op.id}: example ${line} does not start with mcpx`);
      try {
        const parsed = parseArgs(args, ops);
        if (parsed.op !== op) out.push(`${op.id}: example ${line} is ${parsed.op?.id}'s`);
        if (parsed.help) out.push(`${op.id}: example ${line} asks for help`);
      } catch (error) {
        out.push(`${op.id}: example ${line}: ${error instanceof Error ? error.message : error}`);
      }
    }
  }
  return out;
}

Deno.test("operation ids are unique and noun.verb", () => {
  assert.ok(OPERATIONS.length > 0);
  assert.deepEqual(idProblems(OPERATIONS), []);
});

Deno.test("every operation has a command, and no two share one", () => {
  assert.deepEqual(commandProblems(OPERATIONS), []);
});

Deno.test("every operation has a /v1 route or says why not; routes are unique", () => {
  assert.deepEqual(routeProblems(OPERATIONS), []);
  assert.ok(OPERATIONS.some(hasRoute), "no operation has a route");
});

Deno.test("operations that run in the daemon can reach it", () => {
  assert.deepEqual(whereProblems(OPERATIONS), []);
});

Deno.test("parameters are well formed and shadow no global option", () => {
  assert.deepEqual(paramProblems(OPERATIONS), []);
});

Deno.test("MCP annotations do not contradict each other or the route", () => {
  assert.deepEqual(mcpProblems(OPERATIONS), []);
});

Deno.test("the parser accepts every declared command and option, for its operation", () => {
  assert.deepEqual(parserProblems(OPERATIONS), []);
});

Deno.test("the parser rejects undeclared commands and options with USAGE", () => {
  const usageError = (args: string[]) =>
    assert.throws(
      () => parseArgs(args, OPERATIONS),
      (e: unknown) => e instanceof McpxError && e.code === "USAGE",
      `mcpx ${args.join(" ")} should be a USAGE error`,
    );
  const words = new Set(OPERATIONS.flatMap((op) => op.cli.command));
  for (const word of ["frobnicate", "Status", "list", "lauch", "serve"]) {
    if (!words.has(word)) usageError([word]);
  }
  for (const op of OPERATIONS) {
    const args = argsFor(op);
    usageError([...args, "--no-such-option"]);
    // One positional more than declared (a free-form parser, like search's words, takes any).
    const optional = op.params.filter((p) => p.positional && !p.required).map(validValue);
    if (!op.cli.positionals) usageError([...args, ...optional, "extra"]);
    for (const p of op.params.filter((q) => q.positional && q.required)) {
      usageError([...op.cli.command]); // the required positional is missing
      if (p.type === "enum") usageError([...op.cli.command, "not-a-" + p.name]);
    }
  }
  // Every global option is a setting's flag (or help/version), and each parses to its setting.
  for (const key of SETTING_KEYS) {
    const spec = (SETTINGS as Record<string, { type: string; default: string }>)[key];
    const args = spec.type === "boolean" ? [flagName(key)] : [flagName(key), spec.default || "x"];
    const parsed = parseArgs(args, OPERATIONS);
    assert.deepEqual(parsed.flags.map((f) => f.key), [key], `${args.join(" ")} sets ${key}`);
  }
});

Deno.test("every command's help shows its parameters and two or three examples that parse", () => {
  assert.deepEqual(helpProblems(OPERATIONS), []);
  assert.deepEqual(exampleProblems(OPERATIONS), []);
});

Deno.test("main help fits one screen: every command by task, the common options", () => {
  const help = mainHelp(OPERATIONS);
  const lines = help.trimEnd().split("\n");
  assert.ok(lines.length <= 50, `main help is ${lines.length} lines`);
  for (const line of lines) assert.ok(line.length <= HELP_WIDTH, `${line.length} columns: ${line}`);
  // Every command word stands in exactly one group, and every group word is a command.
  const words = HELP_GROUPS.flatMap(([, w]) => w);
  assert.deepEqual(duplicates(words), [], "a command word in two groups");
  assert.deepEqual(
    [...new Set(OPERATIONS.map((op) => op.cli.command[0]))].filter((w) => !words.includes(w)),
    [],
    "a command word in no group",
  );
  for (const w of words) assert.ok(OPERATIONS.some((op) => op.cli.command[0] === w), w);
  for (const op of OPERATIONS) {
    const [first, second] = op.cli.command;
    const shown = second === undefined
      ? new RegExp(`(^|[ ,])${first}(,|$|  )`, "m")
      : new RegExp(`[ ,]${first} ([a-z-]+\\|)*${second}(\\||,|$)`, "m");
    assert.ok(shown.test(help), `main help lists mcpx ${op.cli.command.join(" ")}`);
  }
  const options = help.split("Options:\n")[1]?.split("\n\n")[0] ?? "";
  for (const key of COMMON_OPTIONS) assert.ok(options.includes(flagName(key)), key);
  const others = SETTING_KEYS.filter((k) => !isPlumbing(k) && !COMMON_OPTIONS.includes(k));
  assert.ok(help.includes(`${others.length} more options: \`mcpx help options\``));
});

Deno.test("help commands lists every summary; help options exactly the public flags", () => {
  const commands = flat(commandsHelp(OPERATIONS));
  for (const op of OPERATIONS) assert.ok(commands.includes(op.summary), op.id);
  const raw = optionsHelp();
  for (const line of raw.split("\n")) assert.ok(line.length <= HELP_WIDTH, line);
  const options = flat(raw);
  for (const key of SETTING_KEYS) {
    const listed = new RegExp(`(^|\\s)${flagName(key)}(\\s|$)`).test(raw);
    assert.equal(
      listed,
      !isPlumbing(key),
      `${flagName(key)} ${isPlumbing(key) ? "is plumbing and listed" : "is missing"}`,
    );
    if (isPlumbing(key)) continue;
    assert.ok(options.includes(envName(key)), `${envName(key)} shown`);
    // Grouped by the key's first word: the option stands under its heading.
    const heading = raw.split("\n\n").find((part) => part.startsWith(`${key.split(".")[0]}:\n`));
    assert.ok(heading?.includes(flagName(key)), `${flagName(key)} under ${key.split(".")[0]}:`);
  }
  // Each option row begins with its flag (and its short form): none is undeclared.
  for (const flag of raw.match(/^ {2}(-[a-zA-Z], )?--?[a-zA-Z][a-z0-9-]*/gm) ?? []) {
    for (const f of flag.trim().split(", ")) {
      assert.ok(SETTING_FLAGS.has(f) || RESERVED_FLAGS.has(f), `undeclared ${f} in help`);
    }
  }
});

Deno.test("every operation's output builds a zod object schema that converts to JSON Schema", () => {
  for (const op of OPERATIONS) {
    const schema = op.output(z);
    assert.ok(schema instanceof z.ZodObject, `${op.id}: output is a z.object`);
    const json = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" });
    assert.equal(json.type, "object", `${op.id}: JSON Schema of its output`);
  }
});

/** A stand-in for the running daemon, as operations inside it see it. */
/** A schema cache that knows server "x" and its one tool "x", as a refresh would leave it. */
async function seedCache(tmp: string, configPath: string): Promise<void> {
  const fp = fingerprintConfig(configPath);
  const [def] = serverDefs(await loadConfig(fp.path, fp.text));
  writeCache(join(tmp, "mcpx"), {
    version: 1,
    fingerprint: fp.hash,
    config: fp.path,
    servers: {
      x: {
        identity: cacheIdentity(def.identity),
        tools: [{ name: "x", description: "a tool", inputSchema: { type: "object" } }],
        listedAt: new Date().toISOString(),
      },
    },
  });
}

/** A registry with one in-process server "x" offering one tool "x", for routes that call tools. */
function fakeRegistry(configPath: string): Registry {
  const conn: McpConnection = {
    ended: new Promise(() => {}),
    stderrTail: () => [],
    listTools: () => Promise.resolve([{ name: "x", inputSchema: { type: "object" } }]),
    callTool: () => Promise.resolve({ content: [{ type: "text", text: "ok" }] }),
    onToolsChanged() {},
    close: () => Promise.resolve(),
  };
  const config = { path: configPath, mcpServers: { x: { command: "fake" } }, pool: {}, data: {} };
  return new Registry(serverDefs(config), {
    connect: () => Promise.resolve(conn),
    spec: (def) => ({
      name: def.name,
      transport: "stdio",
      args: [],
      env: {},
      headers: {},
      protocol: "legacy",
    }),
    discover: () => undefined,
    log() {},
    trace: false,
    reapIntervalMs: 60_000,
    alive: () => true,
    questions: new Broker({
      path: join(dirname(configPath), "questions.db"),
      config: configPath,
      deadlineMs: 60_000,
      maxPending: 4,
    }),
  });
}

function fakeDaemon(tmp: string, configPath: string) {
  const stops: string[] = [];
  const handle: DaemonHandle & Record<string, unknown> = {
    pid: Deno.pid,
    startedAt: Date.now() - 1000,
    autostarted: false,
    socket: join(tmp, "fake.sock"),
    configPath,
    fingerprint: "0123456789ab",
    logId: "dmn-0123456789abcdef",
    requestStop: (reason: string) => void stops.push(reason),
    config: { path: configPath, mcpServers: {}, pool: {}, data: {} },
    registry: fakeRegistry(configPath),
    sessions: new NamedSessions({
      path: join(tmp, "fake.sessions.json"),
      daemon: { pid: Deno.pid, startedAt: new Date().toISOString() },
      log: () => {},
      stop: () => Promise.resolve(0),
      instances: () => new Map(),
    }),
    idleExitMs: 0,
    lastActivity: Date.now(),
    inflight: 0,
    ui: {
      open: () => Promise.resolve({ listen: "127.0.0.1:1", code: "0".repeat(32), expiresInMs: 1 }),
      exchange: () => undefined,
    },
  };
  return { handle, stops };
}

async function withRouter(
  ops: Ops,
  fn: (
    call: (method: string, path: string, body?: unknown) => Promise<Response>,
    stops: string[],
  ) => Promise<void>,
): Promise<void> {
  const tmp = await Deno.makeTempDir({ prefix: "mcpx-parity-" });
  try {
    const configPath = join(tmp, "mcpx.json");
    await Deno.writeTextFile(
      configPath,
      JSON.stringify({ mcpServers: { x: { command: "fake" } } }),
    );
    await seedCache(tmp, configPath);
    const io = captureIo({
      env: {
        HOME: tmp,
        XDG_STATE_HOME: tmp,
        XDG_CACHE_HOME: tmp,
        XDG_CONFIG_HOME: tmp,
        MCPX_CONFIG: configPath,
      },
      cwd: tmp,
    });
    const { handle, stops } = fakeDaemon(tmp, configPath);
    // The router's contexts are hosted as the daemon's are: by the command line's surfaces.
    const router = buildRouter(
      ops,
      () => Object.assign(new Context(io, [], handle), { host: CLI_HOST }),
    );
    await fn((method, path, body) =>
      router(
        new Request(`http://mcpx${path}`, {
          method,
          ...(body === undefined ? {} : {
            body: JSON.stringify(body),
            headers: { "content-type": "application/json" },
          }),
        }),
      ), stops);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

function requestFor(op: Routed): { path: string; rest: Record<string, string> } {
  const names = templateNames(op.http.path);
  const path = op.http.path.replace(
    /\{(\w+)\}/g,
    (_, n) => encodeURIComponent(validValue(op.params.find((p) => p.name === n)!)),
  );
  const rest = Object.fromEntries(
    op.params.filter((p) => p.required && !names.includes(p.name)).map((p) => [
      p.name,
      validValue(p),
    ]),
  );
  return { path, rest };
}

/** Every declared route answers 200 in process, with a body its output schema accepts. */
async function routerProblems(ops: Ops): Promise<string[]> {
  const out: string[] = [];
  await withRouter(ops, async (call) => {
    for (const op of ops.filter(hasRoute)) {
      const { path, rest } = requestFor(op);
      const query = op.http.method === "GET" && Object.keys(rest).length
        ? "?" + new URLSearchParams(rest)
        : "";
      const res = await call(
        op.http.method,
        path + query,
        op.http.method === "POST" ? rest : undefined,
      );
      const body = await res.json();
      // A made-up ticket is no question: its routes answer the declared 404.
      if (op.id.startsWith("elicit.") && res.status === 404 && body.code === "QUESTION_NOT_FOUND") {
        continue;
      }
      // And a made-up task id is no task.
      if (op.id.startsWith("tasks.") && res.status === 404 && body.code === "TASK_NOT_FOUND") {
        continue;
      }
      // No server named (all its parameters are optional, one of two is needed): its USAGE answer.
      if (op.id === "tools.adhoc" && res.status === 400 && body.code === "USAGE") continue;
      // No new daemon's command over HTTP (the CLI fills in its own): its USAGE answer. A real one
      // would replace the daemon; tests/e2e/upgrade_test.ts drives that.
      if (op.id === "daemon.upgrade" && res.status === 400 && body.code === "USAGE") continue;
      // No prompt or template named (one of the two is needed): its USAGE answer.
      if (op.id === "completions.get" && res.status === 400 && body.code === "USAGE") continue;
      if (res.status !== 200) {
        out.push(`${op.http.method} ${path}: ${res.status} ${JSON.stringify(body)}`);
        continue;
      }
      const parsed = op.output(z).safeParse(body);
      if (!parsed.success) out.push(`${op.id}: answer does not match output: ${parsed.error}`);
    }
  });
  return out;
}

Deno.test("every /v1 route answers through buildRouter with its declared output", async () => {
  assert.deepEqual(await routerProblems(OPERATIONS), []);
});

Deno.test("/v1 answers undeclared paths 404, wrong methods and inputs 400", async () => {
  await withRouter(OPERATIONS, async (call, stops) => {
    const problem = async (res: Response, status: number, code: string, what: string) => {
      assert.equal(res.status, status, what);
      assert.equal(res.headers.get("content-type"), "application/problem+json", what);
      const body = await res.json();
      assert.equal(body.code, code, what);
      assert.equal(body.status, status, what);
    };
    await problem(await call("GET", "/v1/no-such-route"), 404, "NOT_FOUND", "unknown path");
    await problem(await call("POST", "/v1/no-such-route"), 404, "NOT_FOUND", "unknown path");
    for (const op of OPERATIONS) {
      const guess = `/v1/${op.cli.command.join("/")}`;
      if (!hasRoute(op)) {
        // A routeless operation is not reachable under its command's name either.
        await problem(await call("GET", guess), 404, "NOT_FOUND", `${op.id} has no route`);
        await problem(await call("POST", guess), 404, "NOT_FOUND", `${op.id} has no route`);
        continue;
      }
      const { path } = requestFor(op);
      const unprefixed = path.replace(/^\/v1/, "");
      await problem(await call(op.http.method, unprefixed), 404, "NOT_FOUND", `${unprefixed}`);
      const other = op.http.method === "GET" ? "POST" : "GET";
      if (
        !OPERATIONS.some((o) =>
          hasRoute(o) && o.http.method === other && o.http.path === op.http.path
        )
      ) {
        await problem(await call(other, path), 400, "USAGE", `${other} ${path}`);
      }
      const bogus = op.http.method === "GET" ? `${path}?notAParam=1` : path;
      const body = op.http.method === "POST" ? { notAParam: 1 } : undefined;
      await problem(await call(op.http.method, bogus, body), 400, "USAGE", `${op.id} strict input`);
      for (const p of op.params.filter((q) => q.type === "enum")) {
        const bad = templateNames(op.http.path).includes(p.name)
          ? op.http.path.replace(`{${p.name}}`, "not-a-value")
          : `${path}?${p.name}=not-a-value`;
        if (op.http.method === "GET") {
          await problem(await call("GET", bad), 400, "USAGE", `${op.id} enum ${p.name}`);
        }
      }
    }
    assert.deepEqual(stops, [], "no rejected request reached an operation");
  });
});

Deno.test("GET /v1/config?schema=true agrees with the settings table", async () => {
  const op = OPERATIONS.find((o) => o.id === "config.show");
  assert.ok(op && hasRoute(op), "config.show has a route");
  await withRouter(OPERATIONS, async (call) => {
    for (const plumbing of [false, true]) {
      const res = await call("GET", `${op.http.path}?schema=true&plumbing=${plumbing}`);
      assert.equal(res.status, 200);
      const { schema } = await res.json() as {
        schema: { key: string; env: string[]; flag: string; fileReadable: boolean }[];
      };
      const want = SETTING_KEYS.filter((k) => plumbing || !isPlumbing(k));
      assert.deepEqual(schema.map((s) => s.key), want);
      for (const s of schema) {
        assert.equal(s.env[0], envName(s.key));
        assert.equal(s.flag, flagName(s.key));
        const early = (SETTINGS as Record<string, { early?: boolean }>)[s.key].early ?? false;
        assert.equal(s.fileReadable, !early, `${s.key} fileReadable`);
      }
    }
  });
});

Deno.test("the checks catch a broken table", async () => {
  const [a, b] = OPERATIONS;
  const bad = (name: string, problems: string[]) =>
    assert.ok(problems.length > 0, `${name} should report a problem`);
  bad("duplicate id", idProblems([a, { ...b, id: a.id }]));
  bad("id shape", idProblems([{ ...a, id: "Status" }]));
  bad("duplicate command", commandProblems([a, { ...b, cli: a.cli }]));
  const takesWord = {
    ...a,
    params: [{ name: "w", type: "string", positional: true, doc: "a word" }],
  } as Ops[number];
  bad(
    "prefix command",
    commandProblems([takesWord, { ...b, cli: { command: [...a.cli.command, "x"] } }]),
  );
  bad("no route, no reason", routeProblems([{ ...b, http: { none: " " } }]));
  bad(
    "duplicate route",
    routeProblems([{ ...a, http: { method: "GET", path: "/v1/x/{a}" } }, {
      ...b,
      http: { method: "GET", path: "/v1/x/{b}" },
    }]),
  );
  bad("route outside /v1", routeProblems([{ ...a, http: { method: "GET", path: "/status" } }]));
  bad("undeclared template", routeProblems([{ ...a, http: { method: "GET", path: "/v1/{q}" } }]));
  bad(
    "daemon op without route",
    whereProblems([{ ...a, where: { daemon: "start" }, http: { none: "x" } }]),
  );
  bad(
    "running op without offline",
    whereProblems([{ ...a, where: { daemon: "running" }, offline: undefined }]),
  );
  bad(
    "shadowing param",
    paramProblems([{ ...a, params: [{ name: "json", type: "boolean", doc: "x" }] }]),
  );
  bad(
    "contradictory MCP",
    mcpProblems([{ ...a, mcp: { expose: true, readOnly: true, destructive: true } }]),
  );
  // Two-word commands sharing their first word (`elicit list`, `elicit answer`) parse, each to its
  // own operation; a one-word command that is a prefix of one is still refused (above).
  assert.deepEqual(
    parserProblems([{ ...a, cli: { command: ["daemon", "status"] } }, {
      ...b,
      cli: { command: ["daemon", "start"] },
    }]),
    [],
  );
  bad(
    "failing route",
    await routerProblems([{
      ...a,
      http: { method: "GET", path: "/v1/x" },
      run: () => Promise.reject(new Error("boom")),
    }]),
  );
  bad(
    "wrong output",
    await routerProblems([{
      ...a,
      http: { method: "GET", path: "/v1/x" },
      run: () => Promise.resolve({ nope: true }),
    }]),
  );
});

Deno.test("generated docs are fresh (tools/gen.ts --check)", async () => {
  const gen = fileURLToPath(new URL("../tools/gen.ts", import.meta.url));
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", gen, "--check"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
});

Deno.test("COMMANDS loads exactly the operation OPERATIONS declares for each command word", async () => {
  const { COMMANDS } = await import("../lib/operations/commands.ts");
  assert.deepEqual(
    Object.keys(COMMANDS).sort(),
    [...new Set(OPERATIONS.map((op) => op.cli.command[0]))].sort(),
  );
  for (const op of OPERATIONS) {
    const got = await COMMANDS[op.cli.command[0]]();
    // A two-word command (`elicit answer`) loads its group, every one of which is declared.
    const group = OPERATIONS.filter((o) => o.cli.command[0] === op.cli.command[0]);
    if (group.length > 1) {
      assert.ok(
        Array.isArray(got) && got.includes(op),
        `${op.cli.command.join(" ")} loads ${op.id}`,
      );
      assert.equal(
        got.length,
        OPERATIONS.filter((o) => o.cli.command[0] === op.cli.command[0]).length,
      );
    } else assert.equal(got, op, `${op.cli.command[0]} loads ${op.id}`);
  }
});

Deno.test("generated docs name exactly the MCP tools the MCP surface serves", async () => {
  // docs once listed 16 operations as served tools with nothing serving MCP: the column is read
  // from lib/surfaces/mcp/tools.ts, and here from a served tools/list, never from the declarations.
  const { buildMcpTools } = await import("../lib/surfaces/mcp/tools.ts");
  const { renderCli, renderParity } = await import("../tools/gen.ts");
  const served = new Map(buildMcpTools(OPERATIONS).map((t) => [t.op.id, t]));
  assert.ok(served.size > 0);
  const rows = renderParity().split("\n").filter((line) => line.startsWith("| `"));
  assert.equal(rows.length, OPERATIONS.length);
  const cli = renderCli();
  for (const row of rows) {
    const cells = row.split("|").map((c) => c.trim());
    const id = cells[1].replaceAll("`", "");
    const tool = served.get(id);
    const mcp = cells[4];
    if (!tool) {
      assert.equal(mcp, "no", `${id} is not served but parity.md says ${mcp}`);
      continue;
    }
    assert.ok(
      mcp.startsWith(`\`${tool.name}\``),
      `${id}: parity.md says ${mcp}, served ${tool.name}`,
    );
    assert.equal(mcp.includes("readOnly"), tool.annotations.readOnlyHint, `${id} readOnly`);
    assert.equal(
      mcp.includes("destructive"),
      tool.annotations.destructiveHint,
      `${id} destructive`,
    );
    assert.ok(cli.includes(`MCP: the tool \`${tool.name}\``), `cli.md names ${tool.name}`);
  }
});
