// Classifying what went wrong in a script, and where, the same way under Deno, Bun and Node.
// Erasable TypeScript, no runtime APIs.

import type { Location, ScriptFailure } from "./protocol.ts";
import {
  type CallSite,
  errorFrames,
  type Frame,
  type FrameMapper,
  isRuntimeFrame,
  placeOf,
  renderFrames,
  toPath,
} from "./frames.ts";

/** What the classifier needs to know to tell the script's frames from the launcher's. */
export interface FailureContext {
  script: string;
  launcherDir: string;
  client?: string;
  /** The generated launcher program: its frames are the wrapping's, named only when nothing else is. */
  program?: string;
}

export { toPath };

function isInternal(frame: Frame, ctx: FailureContext): boolean {
  if (isRuntimeFrame(frame)) return true;
  const dir = ctx.launcherDir.endsWith("/") ? ctx.launcherDir : ctx.launcherDir + "/";
  return frame.file!.startsWith(dir) || frame.file === ctx.program;
}

/**
 * The innermost frame the user wrote: not the launcher's, the runtime's or the generated
 * client's; the generated program's (a --prefix, say) when nothing else is there.
 */
export function userFrame(frames: readonly Frame[], ctx: FailureContext): Frame | undefined {
  const own = frames.filter((f) => !isInternal(f, ctx));
  return own.find((f) => f.file !== ctx.client) ?? own[0] ??
    frames.find((f) => ctx.program !== undefined && f.file === ctx.program);
}

/**
 * A logging call's site as `file:line:col`: the {@linkcode userFrame} of the call sites above it.
 * The innermost is read first, and the rest only when that one is not the user's (the generated
 * client's, say): each call site read costs, in Deno a source-map lookup.
 */
export function siteText(
  sites: readonly CallSite[],
  ctx: FailureContext,
  map?: FrameMapper,
): string | undefined {
  if (sites.length === 0) return undefined;
  const first = placeOf(sites[0], map);
  const at = !isInternal(first, ctx) && first.file !== ctx.client
    ? first
    : userFrame([first, ...sites.slice(1).map((s) => placeOf(s, map))], ctx);
  return at?.file ? `${at.file}:${at.line}${at.col ? `:${at.col}` : ""}` : undefined;
}

/** {@linkcode userFrame} as a location. */
export function userLocation(
  frames: readonly Frame[],
  ctx: FailureContext,
): Location | undefined {
  const pick = userFrame(frames, ctx);
  return pick?.file && pick.line !== undefined
    ? { file: pick.file, line: pick.line, ...(pick.col !== undefined ? { col: pick.col } : {}) }
    : undefined;
}

/**
 * The stack with the launcher's and the runtime's own frames taken out, rendered from the
 * frames; the script's frame comes first. Falls back to the string for an error without frames.
 */
export function cleanStack(error: unknown, stack: string, ctx: FailureContext): string {
  const frames = errorFrames(error);
  if (frames.length === 0) return stack;
  const own = frames.filter((f) => !isInternal(f, ctx));
  const first = stack.split("\n    at ")[0];
  return own.length ? `${first}\n${renderFrames(own)}` : first;
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
      const location = syntaxLocation(e, rawMessage) ?? userLocation(errorFrames(error), ctx);
      return {
        kind: syntax ? "syntax" : "load",
        name: syntax ? "SyntaxError" : name,
        message: message.split("\n")[0].trim(),
        ...(location ? { location } : {}),
      };
    }
  }
  if (rawName === "BuildMessage") name = "SyntaxError";
  const frames = errorFrames(error);
  const location = userLocation(frames, ctx);
  const own = frames.filter((f) => !isInternal(f, ctx));
  return {
    kind: "uncaught",
    name,
    message,
    ...(location ? { location } : {}),
    ...(stack ? { stack: cleanStack(error, stack, ctx) } : {}),
    ...(own.length ? { frames: own.map(({ text: _text, ...f }) => f) } : {}),
  };
}

function describeThrown(value: unknown): string {
  try {
    return `threw ${typeof value === "string" ? JSON.stringify(value) : String(value)}`;
  } catch {
    return "threw a value that cannot be shown";
  }
}
