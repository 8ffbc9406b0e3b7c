// The script `mcpx repl` runs in its Worker: it stays, evaluating each statement the CLI posts
// in one global scope, so what one statement declares or leases is there for the next. The
// launcher has installed the globals (every namespace, log, emit) and captured the console, as
// for any script. Statements are evaluated through the V8 inspector in REPL mode, which allows
// top-level await and declaring a name again, as Deno's own REPL does. Erasable TypeScript only;
// only a Deno Worker runs it, so its node: modules are imported when it starts rather than at the
// top, where every runtime's launcher files would have to have them.

import { renderResult } from "./runtime.ts";
import { jsonProblem } from "./values.ts";
import type { ReplReply, ReplRequest } from "./protocol.ts";

interface Remote {
  objectId?: string;
  value?: unknown;
  unserializableValue?: string;
}

interface Evaluated {
  result: Remote;
  exceptionDetails?: { exception?: Remote; text?: string };
}

// deno-lint-ignore no-explicit-any
const g = globalThis as any;
const KEY = Symbol.for("mcpx.repl.value");
const encoder = new TextEncoder();

function write(fd: 1 | 2, text: string): void {
  const file = fd === 1 ? g.Deno.stdout : g.Deno.stderr;
  file.writeSync(encoder.encode(text));
}

/** Shows a value as `mcpx run` prints a result; what JSON cannot hold is inspected instead. */
function show(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value !== "string" && jsonProblem(value, "the value")) {
    return g.Deno.inspect(value, { colors: false, depth: 6 }) + "\n";
  }
  return renderResult(value);
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    // Frames of the inspector and of this file say nothing about the statement.
    const frames = (error.stack ?? "").split("\n").slice(1).filter((l) =>
      /^\s+at /.test(l) && !l.includes("ext:") && !l.includes("<anonymous>") &&
      !l.includes(import.meta.url)
    );
    return `Uncaught ${error.name}: ${error.message}\n${frames.map((f) => f + "\n").join("")}`;
  }
  return `Uncaught ${g.Deno.inspect(error, { colors: false })}\n`;
}

/** Evaluates statements until the CLI says the session is over. */
export default async function repl(): Promise<void> {
  const [{ Session }, { stripTypeScriptTypes }] = await Promise.all([
    import("node:inspector"),
    import("node:module"),
  ]);
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params: Record<string, unknown>) =>
    new Promise<T>((resolve, reject) =>
      session.post(
        method,
        params,
        (error: Error | null, result?: object) => error ? reject(error) : resolve(result as T),
      )
    );
  // Hands a value the inspector holds to this side of it.
  const fetch = async (remote: Remote): Promise<unknown> => {
    const global = await post<{ result: Remote }>("Runtime.evaluate", { expression: "globalThis" });
    const argument = remote.objectId
      ? { objectId: remote.objectId }
      : remote.unserializableValue !== undefined
      ? { unserializableValue: remote.unserializableValue }
      : { value: remote.value };
    await post("Runtime.callFunctionOn", {
      objectId: global.result.objectId,
      functionDeclaration: `function (v) { this[Symbol.for("mcpx.repl.value")] = v; }`,
      arguments: [argument],
    });
    const value = g[KEY];
    delete g[KEY];
    return value;
  };
  const evaluate = async (code: string): Promise<boolean> => {
    let js: string;
    try {
      js = stripTypeScriptTypes(code, { mode: "strip" });
    } catch (error) {
      write(2, `SyntaxError: ${(error as Error).message.split("\n")[0]}\n`);
      return false;
    }
    const r = await post<Evaluated>("Runtime.evaluate", {
      expression: js,
      replMode: true,
      awaitPromise: true,
    });
    if (r.exceptionDetails) {
      const thrown = r.exceptionDetails.exception;
      write(2, thrown ? describe(await fetch(thrown)) : `${r.exceptionDetails.text}\n`);
      return false;
    }
    write(1, show(await fetch(r.result)));
    return true;
  };
  let ended = false;
  return new Promise((resolve) => {
    g.addEventListener("message", (event: MessageEvent<ReplRequest>) => {
      const m = event.data;
      if (m?.t === "end") {
        // A statement still running is given up with the session: its failure is not news.
        ended = true;
        session.disconnect();
        resolve();
      } else if (m?.t === "eval") {
        evaluate(m.code).catch((error) => {
          if (!ended) write(2, describe(error));
          return false;
        }).then((ok) => g.postMessage({ t: "evaluated", ok } satisfies ReplReply));
      }
    });
    g.postMessage({ t: "evaluated", ok: true } satisfies ReplReply);
  });
}
