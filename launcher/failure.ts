// Classifying what went wrong in a script, and where, the same way under Deno, Bun and Node.
// Erasable TypeScript, no runtime APIs.

import type { Location, ScriptFailure } from "./protocol.ts";

/** What the classifier needs to know to tell the script's frames from the launcher's. */
export interface FailureContext {
  script: string;
  launcherDir: string;
  client?: string;
}

interface Frame {
  line: string;
  file: string;
  lineNo: number;
  col: number;
}

const FRAME = /^\s*at (?:.*? \()?(.+?):(\d+):(\d+)\)?\s*$/;

/** A `file:` URL or a path, as a path. */
export function toPath(file: string): string {
  if (!file.startsWith("file://")) return file;
  try {
    return decodeURIComponent(new URL(file).pathname);
  } catch {
    return file;
  }
}

function isInternal(file: string, ctx: FailureContext): boolean {
  return /^(node|ext|bun|internal|native)[:/]|^\[|^<anonymous>$|^native$/.test(file) ||
    file.startsWith(ctx.launcherDir.endsWith("/") ? ctx.launcherDir : ctx.launcherDir + "/");
}

function frames(stack: string): Frame[] {
  const out: Frame[] = [];
  for (const line of stack.split("\n")) {
    const m = FRAME.exec(line);
    if (m) out.push({ line, file: toPath(m[1]), lineNo: Number(m[2]), col: Number(m[3]) });
  }
  return out;
}

/** The innermost frame the user wrote: not the launcher's, the runtime's or the generated client's. */
export function userLocation(stack: string, ctx: FailureContext): Location | undefined {
  const all = frames(stack).filter((f) => !isInternal(f.file, ctx));
  const pick = all.find((f) => f.file !== ctx.client) ?? all[0];
  return pick ? { file: pick.file, line: pick.lineNo, col: pick.col } : undefined;
}

/** The stack with the launcher's and the runtime's own frames taken out. */
export function cleanStack(stack: string, ctx: FailureContext): string {
  return stack.split("\n").filter((line) => {
    const m = FRAME.exec(line);
    return !m || !isInternal(toPath(m[1]), ctx);
  }).join("\n");
}

function splitName(name: string, message: string): { name: string; message: string } {
  const m = /^([A-Z]\w*(?:Error|Exception)): ([\s\S]*)$/.exec(message);
  return m ? { name: m[1], message: m[2] } : { name, message };
}

/** Where a parse error points, in whichever form the runtime reported it. */
function syntaxLocation(error: Record<string, unknown>, message: string): Location | undefined {
  const pos = error.position as { file?: string; line?: number; column?: number } | undefined;
  if (pos && typeof pos.file === "string" && typeof pos.line === "number") {
    return { file: toPath(pos.file), line: pos.line, col: pos.column };
  }
  // Deno: "…\n    at file:///x/bad.ts:2:9" closes the message.
  const deno = /\n\s*at (\S+?):(\d+):(\d+)\s*$/.exec(message);
  if (deno) return { file: toPath(deno[1]), line: Number(deno[2]), col: Number(deno[3]) };
  // Node: the stack opens with "/x/bad.ts:2\n<source line>\n   ^".
  const stack = typeof error.stack === "string" ? error.stack : "";
  const node = /^(.+?):(\d+)\n((?:.*\n)*?)(\s*)\^/.exec(stack);
  if (node) return { file: toPath(node[1]), line: Number(node[2]), col: node[4].length + 1 };
  return undefined;
}

/**
 * Classifies a thrown value. `importing` says it came out of importing the script, where a parse
 * or resolution error is the script's syntax or a missing module rather than a throw.
 */
export function describeFailure(
  error: unknown,
  ctx: FailureContext,
  importing = false,
): ScriptFailure {
  if (!(error instanceof Object)) {
    return { kind: "uncaught", name: "Uncaught", message: describeThrown(error) };
  }
  const e = error as Record<string, unknown>;
  const rawName = typeof e.name === "string" ? e.name : "Error";
  const rawMessage = typeof e.message === "string" ? e.message : String(error);
  let { name, message } = splitName(rawName, rawMessage);
  const stack = typeof e.stack === "string" ? e.stack : "";
  if (importing) {
    const syntax = name === "SyntaxError" || rawName === "BuildMessage";
    const missing = rawName === "ResolveMessage" || e.code === "ERR_MODULE_NOT_FOUND" ||
      /^Module not found\b/.test(message);
    if (syntax || missing) {
      const location = syntaxLocation(e, rawMessage) ?? userLocation(stack, ctx);
      return {
        kind: syntax ? "syntax" : "load",
        name: syntax ? "SyntaxError" : name,
        message: message.split("\n")[0].trim(),
        ...(location ? { location } : {}),
      };
    }
  }
  if (rawName === "BuildMessage") name = "SyntaxError";
  const location = userLocation(stack, ctx);
  return {
    kind: "uncaught",
    name,
    message,
    ...(location ? { location } : {}),
    ...(stack ? { stack: cleanStack(stack, ctx) } : {}),
  };
}

function describeThrown(value: unknown): string {
  try {
    return `threw ${typeof value === "string" ? JSON.stringify(value) : String(value)}`;
  } catch {
    return "threw a value that cannot be shown";
  }
}
