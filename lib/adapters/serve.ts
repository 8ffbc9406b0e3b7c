// `mcpx adapter serve <name>`: one adapter as a stdio MCP server (newline-delimited JSON-RPC 2.0),
// which the daemon starts like any configured server. Each tools/call runs the program once, with
// an argument vector and no shell; a non-zero exit is a plain result, the caller's to judge, and
// `isError` only for the exit statuses the declaration names (`errorExitCodes`).

import type { Adapter, AdapterTool } from "./declare.ts";
import { ArgumentProblem, buildArgv, inputSchema } from "./argv.ts";
import { VERSION } from "../version.ts";
import { messageOf } from "../errors.ts";

type Id = string | number | null;

/** The most of stdout and of stderr a result carries; the rest is cut and said so. */
export const STREAM_LIMIT = 4 * 1024 * 1024;

const OUTPUT_SCHEMA = {
  type: "object",
  properties: {
    exitCode: { type: "integer", description: "The program's exit status" },
    stdout: { type: "string" },
    stderr: { type: "string" },
    truncated: { type: "boolean", description: "stdout or stderr was cut at 4 MiB" },
  },
  required: ["exitCode", "stdout", "stderr"],
};

/** The tools/list entries of an adapter. */
export function adapterTools(adapter: Adapter): Record<string, unknown>[] {
  return adapter.tools.map((t) => ({
    name: t.name,
    description: t.description ??
      `Runs \`${[adapter.command, ...t.args].join(" ")}\` with the given parameters`,
    inputSchema: inputSchema(t),
    outputSchema: OUTPUT_SCHEMA,
  }));
}

const decoder = new TextDecoder();

/** Whether `code` is a failure by the declaration: the tool's `errorExitCodes`, else the adapter's. */
export function isFailure(adapter: Adapter, tool: AdapterTool, code: number): boolean {
  const declared = tool.errorExitCodes ?? adapter.errorExitCodes;
  if (declared === undefined) return false;
  return declared === "nonzero" ? code !== 0 : declared.includes(code);
}

function text(bytes: Uint8Array): { text: string; cut: boolean } {
  const cut = bytes.length > STREAM_LIMIT;
  return { text: decoder.decode(cut ? bytes.subarray(0, STREAM_LIMIT) : bytes), cut };
}

/** Runs one tool call: the CallToolResult, never a thrown error for what the program did. */
export async function callAdapterTool(
  adapter: Adapter,
  toolName: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const fail = (message: string) => ({ content: [{ type: "text", text: message }], isError: true });
  const tool = adapter.tools.find((t) => t.name === toolName);
  if (!tool) {
    return fail(
      `Adapter "${adapter.name}" has no tool "${toolName}"; it has ${
        adapter.tools.map((t) => t.name).join(", ")
      }`,
    );
  }
  let argv: string[];
  try {
    argv = buildArgv(tool, args ?? {});
  } catch (e) {
    if (e instanceof ArgumentProblem) return fail(e.message);
    throw e;
  }
  let output: Deno.CommandOutput;
  try {
    const child = new Deno.Command(adapter.command, {
      args: argv,
      cwd: adapter.cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    // A cancelled call (its caller gone, or callTimeout) stops the program it started.
    const stop = () => {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
    };
    signal?.addEventListener("abort", stop, { once: true });
    try {
      output = await child.output();
    } finally {
      signal?.removeEventListener("abort", stop);
    }
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      return fail(
        `"${adapter.command}" is not installed (not found on PATH); see \`mcpx adapter check\``,
      );
    }
    return fail(`Cannot run "${adapter.command}": ${messageOf(e)}`);
  }
  const out = text(output.stdout);
  const err = text(output.stderr);
  const exitCode = output.code;
  const structured: Record<string, unknown> = { exitCode, stdout: out.text, stderr: err.text };
  if (out.cut || err.cut) structured.truncated = true;
  const shown = exitCode === 0
    ? out.text
    : `exit ${exitCode}\n${out.text}${out.text && err.text ? "\n" : ""}${err.text}`;
  return {
    content: [{ type: "text", text: shown }],
    structuredContent: structured,
    ...(isFailure(adapter, tool, exitCode) ? { isError: true } : {}),
  };
}

/** The tool calls in progress, by request id, for notifications/cancelled. */
const running = new Map<Id, AbortController>();

/** Answers one JSON-RPC message; undefined for a notification. */
export async function answer(
  adapter: Adapter,
  message: { id?: Id; method?: string; params?: Record<string, unknown> },
): Promise<Record<string, unknown> | undefined> {
  const { id, method, params } = message;
  if (method === "notifications/cancelled") {
    running.get(params?.requestId as Id)?.abort();
    return undefined;
  }
  if (id === undefined) return undefined;
  const ok = (result: unknown) => ({ jsonrpc: "2.0", id, result });
  switch (method) {
    case "initialize":
      return ok({
        protocolVersion: typeof params?.protocolVersion === "string"
          ? params.protocolVersion
          : "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: `mcpx-adapter-${adapter.name}`, version: VERSION },
        ...(adapter.description ? { instructions: adapter.description } : {}),
      });
    case "ping":
      return ok({});
    case "tools/list":
      return ok({ tools: adapterTools(adapter) });
    case "tools/call": {
      const name = String(params?.name ?? "");
      const args = (params?.arguments ?? {}) as Record<string, unknown>;
      const abort = new AbortController();
      running.set(id, abort);
      try {
        return ok(await callAdapterTool(adapter, name, args, abort.signal));
      } finally {
        running.delete(id);
      }
    }
    default:
      return {
        jsonrpc: "2.0",
        id,
        error: { code: -32601, message: `Method not found: ${method}` },
      };
  }
}

/** Serves `adapter` on stdin and stdout until stdin closes. */
export async function serveAdapter(adapter: Adapter): Promise<void> {
  const encoder = new TextEncoder();
  const write = (value: unknown) => {
    const bytes = encoder.encode(JSON.stringify(value) + "\n");
    let done = 0;
    while (done < bytes.length) done += Deno.stdout.writeSync(bytes.subarray(done));
  };
  const pending = new Set<Promise<void>>();
  let buffer = "";
  const lineDecoder = new TextDecoder();
  for await (const chunk of Deno.stdin.readable) {
    buffer += lineDecoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (line === "") continue;
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(line);
      } catch {
        write({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
        continue;
      }
      // Calls run concurrently: one slow program does not hold up the next request.
      const p = answer(adapter, message as never).then(
        (reply) => reply && write(reply),
        (e) =>
          write({
            jsonrpc: "2.0",
            id: message.id ?? null,
            error: { code: -32603, message: messageOf(e) },
          }),
      ).finally(() => pending.delete(p));
      pending.add(p);
    }
  }
  await Promise.all(pending);
}
