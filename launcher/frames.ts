// Stack frames as data, from V8's call sites (Error.prepareStackTrace), the same under Deno, Node
// and Bun. Erasable TypeScript, no runtime APIs.
//
// V8 keeps whatever prepareStackTrace returned the first time `.stack` is read, so asking for the
// frames would lose the string and asking for the string would lose the frames. Both are kept:
// the frames are stored on the error and the string is rendered from the very same call sites.

/** One frame of a stack, as V8 reports it (after the runtime's source maps). */
export interface Frame {
  /** The function's name, when it has one. */
  fn?: string;
  /** A path for a local file, else what the runtime reports (`ext:…`, `node:…`, a URL). */
  file?: string;
  line?: number;
  col?: number;
  /** Awaited from this frame (`at async f`). */
  async?: boolean;
  native?: boolean;
  /** `new F()`. */
  construct?: boolean;
  /** The runtime's own rendering of this frame (`f (file:///x.ts:3:9)`). */
  text: string;
}

/** Maps a frame of emitted JavaScript back to its source (Node's source maps), when it can. */
export type FrameMapper = (frame: Frame) => Frame;

const FRAMES = Symbol.for("mcpx.frames");

/** The stack text rendered last, and its frames (see {@linkcode framesOfRendered}). */
let last: { text: string; frames: Frame[] } | undefined;

export interface CallSite {
  getFunctionName(): string | null;
  getMethodName?(): string | null;
  getTypeName?(): string | null;
  getFileName(): string | undefined | null;
  getScriptNameOrSourceURL?(): string | undefined | null;
  getLineNumber(): number | null;
  getColumnNumber(): number | null;
  isAsync?(): boolean;
  isNative?(): boolean;
  isConstructor?(): boolean;
  toString(): string;
}

/** A `file:` URL or a path, as a path. */
export function toPath(file: string): string {
  if (!file.startsWith("file://")) return file;
  try {
    return decodeURIComponent(new URL(file).pathname);
  } catch {
    return file;
  }
}

/** How frames are made: mapped back to their sources, local paths shown as `file:` URLs. */
export interface FrameOptions {
  map?: FrameMapper;
  /** Show a local path as a `file:` URL, as Deno's own stack traces do. */
  urls?: boolean;
  /**
   * Frames left out of both the data and the string (the launcher's own), unless that would leave
   * none, so a failed run's stack opens with the script's frame.
   */
  hide?: (frame: Frame) => boolean;
}

/** A `file:` URL for an absolute path, each segment escaped. */
export function fileUrl(path: string): string {
  return "file://" + path.split("/").map(encodeURIComponent).join("/");
}

function frameOf(site: CallSite, options: FrameOptions): Frame {
  const name = site.getFileName() ?? site.getScriptNameOrSourceURL?.() ?? undefined;
  let text = String(site);
  if (options.urls && name?.startsWith("/")) text = text.replace(name + ":", fileUrl(name) + ":");
  const frame: Frame = { text };
  const fn = site.getFunctionName();
  if (fn) frame.fn = fn;
  if (name) frame.file = toPath(name);
  const line = site.getLineNumber();
  const col = site.getColumnNumber();
  if (line !== null && line !== undefined) frame.line = line;
  if (col !== null && col !== undefined) frame.col = col;
  if (site.isAsync?.()) frame.async = true;
  if (site.isNative?.()) frame.native = true;
  if (site.isConstructor?.()) frame.construct = true;
  return options.map ? options.map(frame) : frame;
}

/** Mapped places by their unmapped `file:line:col`: a program logs from few places, often. */
const MAPPED = new Map<string, Frame>();

/**
 * Where a call site is, as a frame without its rendered text (reading only its file, line,
 * column, name and whether it is native), mapped back to its source by `map`: each place mapped
 * once. For call sites read one by one (the logger's), not for whole stacks.
 */
export function placeOf(site: CallSite, map?: FrameMapper): Frame {
  const name = site.getFileName() ?? site.getScriptNameOrSourceURL?.() ?? undefined;
  const frame: Frame = { text: "" };
  if (name) frame.file = toPath(name);
  const line = site.getLineNumber();
  const col = site.getColumnNumber();
  if (line !== null && line !== undefined) frame.line = line;
  if (col !== null && col !== undefined) frame.col = col;
  if (site.isNative?.()) frame.native = true;
  if (!map || frame.file === undefined) return frame;
  const key = `${frame.file}:${frame.line}:${frame.col}`;
  let mapped = MAPPED.get(key);
  if (!mapped) {
    if (MAPPED.size >= 1000) MAPPED.clear();
    mapped = map({ ...frame, text: `${frame.file}:${frame.line}:${frame.col}` });
    MAPPED.set(key, mapped);
  }
  return mapped;
}

/** The `at …` lines of a stack, rendered from frames. */
export function renderFrames(frames: readonly Frame[]): string {
  return frames.map((f) => `    at ${f.text}`).join("\n");
}

function header(error: unknown): string {
  if (error === null || typeof error !== "object") return String(error);
  const e = error as { name?: unknown; message?: unknown };
  const name = e.name === undefined ? "Error" : String(e.name);
  const message = e.message === undefined ? "" : String(e.message);
  if (!name) return message;
  if (!message) return name;
  return `${name}: ${message}`;
}

/**
 * Makes `Error.prepareStackTrace` keep every error's frames as data and render its `.stack` from
 * them, as the runtime would. Returns a function that puts the previous hook back.
 */
export function installStackTraces(options: FrameOptions = {}): () => void {
  const E = Error as unknown as {
    prepareStackTrace?: (error: Error, sites: CallSite[]) => unknown;
  };
  const previous = E.prepareStackTrace;
  E.prepareStackTrace = (error: Error, sites: CallSite[]) => {
    const all = sites.map((s) => frameOf(s, options));
    const shown = options.hide ? all.filter((f) => !options.hide!(f)) : all;
    const frames = shown.length ? shown : all;
    try {
      Object.defineProperty(error, FRAMES, { value: frames, configurable: true });
    } catch { /* a frozen object: the string still renders */ }
    // Mapped frames render with their mapped place; the rest as the runtime renders them.
    const text = frames.length ? `${header(error)}\n${renderFrames(frames)}` : header(error);
    last = { text, frames };
    return text;
  };
  return () => {
    E.prepareStackTrace = previous;
  };
}

/** The frames of `error` (reading its `.stack` once, which fills them), or [] if it has none. */
export function errorFrames(error: unknown): Frame[] {
  if (error === null || typeof error !== "object") return [];
  const e = error as Record<PropertyKey, unknown>;
  const have = e[FRAMES];
  if (Array.isArray(have)) return have as Frame[];
  void e.stack;
  const after = e[FRAMES];
  return Array.isArray(after) ? after as Frame[] : [];
}

/**
 * The frames behind a stack text this hook has just rendered (a caller that was handed only the
 * `.stack` string of an object read a moment ago), or [] for any other text. Nothing is parsed.
 */
export function framesOfRendered(stack: string): Frame[] {
  return last && last.text === stack ? last.frames : [];
}

/**
 * The frames of the caller of `captureFrames`: `skip` more of the innermost left out, at most
 * `limit` returned.
 */
export function captureFrames(skip = 0, limit = 50): Frame[] {
  const E = Error as unknown as {
    stackTraceLimit?: number;
    captureStackTrace?: (target: object, fn?: unknown) => void;
  };
  const saved = E.stackTraceLimit;
  // Room for the launcher's own frames, which are left out after capture.
  E.stackTraceLimit = Math.max(0, skip) + Math.max(0, limit) + 32;
  try {
    const holder: Record<string, unknown> = {};
    if (E.captureStackTrace) E.captureStackTrace(holder, captureFrames);
    else holder.stack = new Error().stack;
    return errorFrames(holder).slice(Math.max(0, skip), Math.max(0, skip) + Math.max(0, limit));
  } finally {
    E.stackTraceLimit = saved;
  }
}

/** Whether a frame is the runtime's own (ext:, node:, native) rather than a file's. */
export function isRuntimeFrame(frame: Frame): boolean {
  const file = frame.file;
  if (frame.native || !file) return true;
  return /^(node|ext|bun|internal|native)[:/]|^\[|^<anonymous>$|^native$/.test(file);
}
