import type { z } from "zod";
import type { Context } from "../context.ts";
import type { McpxError } from "../errors.ts";

/** What `mcpx candidates` lists: namespaces, `ns.tool` names, both, or script names. */
export type CandidateKind = "namespaces" | "tools" | "targets" | "scripts";

/** The kinds of value an operation parameter takes; `list` is a list of strings. */
export type ParamType = "string" | "boolean" | "integer" | "enum" | "json" | "list";

/** One input of an operation: a CLI flag or positional, a query or body field, an MCP argument. */
export interface ParamSpec {
  /** camelCase; the flag is its kebab-case form. */
  readonly name: string;
  readonly type: ParamType;
  readonly doc: string;
  readonly positional?: boolean;
  readonly required?: boolean;
  readonly values?: readonly string[];
  readonly short?: string;
  /** A flag that may be given several times; its values are collected into a list. */
  readonly repeatable?: boolean;
  /** A boolean that is on unless turned off: help shows it as `--no-<name>`. */
  readonly on?: boolean;
}

/** The zod namespace, handed to schema builders so operation modules never import zod. */
export type Zod = typeof z;

/** An operation: declared once, rendered as a command, a `/v1` route and an MCP tool. */
export interface Operation<I = Record<string, unknown>, O = unknown> {
  /** `noun.verb`. */
  readonly id: string;
  readonly summary: string;
  readonly description?: string;
  readonly params: readonly ParamSpec[];
  /**
   * The command words; every operation has a command. `positionals` replaces the declared
   * positional parameters with a parser of the words after the command (e.g. `ns.tool k=v`),
   * shown in help as `usage`.
   */
  readonly cli: {
    readonly command: readonly string[];
    readonly usage?: string;
    readonly positionals?: (words: readonly string[]) => Record<string, unknown>;
    /** The parameters `positionals` fills; they are not flags. */
    readonly fills?: readonly string[];
    /** Words after the command that `positionals` accepts, for help and tests. */
    readonly example?: readonly string[];
    /**
     * Two or three command lines that show the command at work, each with what it does: printed
     * under "Examples:" in its help and in the man page; a test parses each to this operation.
     */
    readonly examples?: readonly (readonly [line: string, doc: string])[];
    /** What a shell completes the command's words to (`mcpx candidates <kind>`). */
    readonly complete?: CandidateKind;
    /**
     * What the command sends to `run`, when it asks for more than was typed (`call` always asks
     * for the envelope, which it renders, and reads `-` or `@file` arguments in the caller's
     * process); `render` and `json` still see what was typed.
     */
    readonly request?: (
      input: Record<string, unknown>,
      ctx: Context,
    ) => Record<string, unknown> | Promise<Record<string, unknown>>;
  };
  /** The route, or why there is none. */
  readonly http: {
    readonly method: "GET" | "POST";
    readonly path: string;
    /** More routes to the same operation; `bodyField` takes the whole JSON body as that input. */
    readonly also?: readonly {
      readonly method: "POST";
      readonly path: string;
      readonly bodyField: string;
    }[];
  } | {
    readonly none: string;
  };
  /**
   * MCP exposure (a tool of `mcpx serve` named `mcpx_<command words>`,
   * lib/surfaces/mcp/tools.ts) and the annotations a client can scope on.
   */
  readonly mcp: {
    readonly expose: boolean;
    readonly readOnly?: boolean;
    readonly destructive?: boolean;
    /** Parameters the tool does not offer (they only make sense on a command line). */
    readonly hidden?: readonly string[];
    /** What the tool sends to `run`, when it asks for more than the arguments given. */
    readonly request?: (input: Record<string, unknown>) => Record<string, unknown>;
    /**
     * The tool's CallToolResult, when the output carries one to pass through as it came (a
     * called tool's own result, `isError` included); without it the output is the result's
     * structured content.
     */
    readonly result?: (output: O) => unknown;
    /** The CallToolResult of a failure, when the error carries one to pass through. */
    readonly errorResult?: (error: McpxError) => unknown;
    /**
     * The operation's tool in the light code mode `mcpx serve` serves by default (the whole set is
     * behind `--tools all`), written for an agent calling over MCP rather than for a command line.
     */
    readonly agent?: {
      readonly description: string;
      /** The parameters offered, each with its description for an agent; the rest are not. */
      readonly params: Readonly<Record<string, string>>;
      /** The answer's text, when it is not the output as JSON (e.g. declarations as they read). */
      readonly text?: (output: O) => string;
    };
  };
  /**
   * Where `run` executes when called from the CLI: `local` in the command's own process;
   * `daemon` over `/v1`, starting the daemon on demand (`start`) or only if it runs (`running`).
   */
  readonly where: "local" | { readonly daemon: "start" | "running" };
  /**
   * `configuration`: a local operation that describes the configuration (its servers, their
   * tools). With `daemon.endpoint` set the configuration is the one that daemon runs, not this
   * machine's, so the CLI asks that daemon over the operation's route instead (docs/daemon.md).
   */
  readonly describes?: "configuration";
  /**
   * It starts what the configuration names (servers, the daemon, scripts): the CLI refuses it,
   * before anything runs, while the configuration is not trusted (lib/config/trust.ts).
   */
  readonly needsTrust?: boolean;
  /** The answer's shape, built from the zod namespace it is handed. */
  readonly output: (z: Zod) => z.ZodType;
  readonly run: (input: I, ctx: Context) => Promise<O>;
  /** For `where.daemon === "running"`: the answer when no daemon runs. */
  readonly offline?: (input: I, ctx: Context) => Promise<O>;
  /** The human form; without it the output prints as JSON. `input` is what was typed. */
  readonly render?: (output: O, ctx: Context, input: I) => string | Promise<string>;
  /** The `--json` document, when it is not the output itself. */
  readonly json?: (output: O, ctx: Context, input: I) => unknown;
  /**
   * The `--json` document for a failure, when the operation has more to say than the error
   * (`call` prints a tool error's envelope); undefined leaves the usual `{ error }` document.
   */
  readonly jsonError?: (error: McpxError, ctx: Context, input: I) => unknown;
}

/** Declares an operation; typed identity, so declarations stay plain data plus functions. */
export function defineOperation<I = Record<string, unknown>, O = unknown>(
  op: Operation<I, O>,
): Operation<I, O> {
  return op;
}

/** kebab-case flag for a camelCase parameter name. */
export function paramFlag(name: string): string {
  return "--" + name.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();
}
