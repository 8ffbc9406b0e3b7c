// How a server's name becomes a namespace and a tool's name a function name: the one rule that
// `types`, the client module, the script globals, `search`, `catalog`, `schema`, `call` and `/v1`
// all use. Two copies of it once disagreed, and a tool could be promised under one name and
// reached under none. docs/discovery.md states the rule for users.

/**
 * Whether `name` is a JavaScript identifier name: a letter (any script), `$` or `_`, then
 * letters, digits, marks, `$` and `_` (`ünïcode` is one, `2fa` and `a-b` are not). Reserved
 * words are identifier names too; {@linkcode isReservedWord} tells them apart.
 */
export function isIdentifier(name: string): boolean {
  if (name === "") return false;
  // By hand for ASCII: it runs for every server at every start, and a start's first regular
  // expression costs ~0.15 ms.
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c >= 128) return unicodeIdentifier().test(name);
    if (!asciiWord(c) || (i === 0 && c >= 48 && c <= 57)) return false;
  }
  return true;
}

/**
 * `name` as an identifier: itself when it is one already, else each character that cannot be in
 * an identifier as `_`, and a leading `_` when it would start with a digit (`chrome-devtools` →
 * `chrome_devtools`, `2fa` → `_2fa`, `x.y` → `x_y`). The empty name is `_`.
 */
export function toIdentifier(name: string): string {
  if (isIdentifier(name)) return name;
  let id = "";
  for (const c of name) {
    const code = c.charCodeAt(0);
    id += code < 128 ? (asciiWord(code) ? c : "_") : (unicodePart().test(c) ? c : "_");
  }
  if (id === "") return "_";
  const first = id.codePointAt(0)!;
  const starts = first < 128 ? !(first >= 48 && first <= 57) : unicodeStart().test(id);
  return starts ? id : `_${id}`;
}

/**
 * Whether `name` cannot name a function or a namespace as it is: a reserved word of strict-mode
 * JavaScript (`delete`, `class`, `await`, `eval`…), or `__proto__`, which an object literal
 * (the client module's `{ __proto__: … }`) takes as its prototype rather than as a key.
 */
export function isReservedWord(name: string): boolean {
  return RESERVED.has(name);
}

/** Whether `name` cannot name a type alias inside a generated namespace. */
export function isReservedTypeName(name: string): boolean {
  return RESERVED.has(name) || RESERVED_TYPE_NAMES.has(name);
}

/**
 * The namespace a server is reached by (from its name, or its `mcpx.namespace`): the identifier
 * form, with `_` appended when that is a reserved word or a name scripts already have
 * (`search`, `tools`, `log`, `process`…, and every name the client module's runtime declares).
 */
export function toNamespace(name: string): string {
  const id = toIdentifier(name);
  return RESERVED.has(id) || TAKEN.has(id) ? `${id}_` : id;
}

/**
 * The function name of each tool, by tool name: {@linkcode toIdentifier}, then `_` appended to a
 * reserved word (`delete` → `delete_`). When two tools land on one name, a tool already spelled
 * that way keeps it and the others, in name order (by UTF-16 code units), take the first free
 * `_2`, `_3`…, never one that another tool is spelled as. The same tools always get the same
 * names, whatever order they come in.
 *
 * @example
 * ```ts
 * functionNames([{ name: "a-b" }, { name: "a_b" }]);
 * // Map { "a-b" => "a_b_2", "a_b" => "a_b" }
 * ```
 */
export function functionNames(tools: readonly { name: string }[]): Map<string, string> {
  const base = (name: string) => {
    const id = toIdentifier(name);
    return RESERVED.has(id) ? `${id}_` : id;
  };
  const names = [...new Set(tools.map((t) => t.name))].sort(compare);
  const taken = new Set<string>();
  const out = new Map<string, string>();
  for (const name of names) {
    if (base(name) === name) {
      out.set(name, name);
      taken.add(name);
    }
  }
  const wanted = new Set(names.map(base));
  for (const name of names) {
    if (out.has(name)) continue;
    const b = base(name);
    let id = b;
    for (let n = 2; taken.has(id) || (id !== b && wanted.has(id)); n++) id = `${b}_${n}`;
    out.set(name, id);
    taken.add(id);
  }
  return out;
}

/**
 * Every top-level name the client module's runtime (lib/runtime/client.ts) declares; a namespace
 * is declared beside them, so it may not be one of them. A test holds this list to that module.
 */
export const RUNTIME_NAMES: readonly string[] = [
  "BAKED_SOCKET",
  "BAKED_TOKEN_FILE",
  "META",
  "AD_HOC",
  "Json",
  "RawResult",
  "ToolResult",
  "ToolError",
  "ToolMeta",
  "SearchHit",
  "HttpAnswer",
  "CallOptions",
  "denoProgress",
  "g",
  "deno",
  "env",
  "socket",
  "tcpEndpoint",
  "where",
  "token",
  "callerEnv",
  "callerHeader",
  "traceIds",
  "readResponse",
  "decodeChunked",
  "concat",
  "headEnd",
  "denoPost",
  "nodePost",
  "restarting",
  "restartDaemon",
  "postOnce",
  "post",
  "PRINTS_AS_TEXT",
  "withRaw",
  "call",
  "TaskInfo",
  "TaskHandle",
  "startTask",
  "requestFeature",
  "words",
  "search",
  "logAt",
  "log",
  "emit",
  "describe",
  "Question",
  "QuestionHandler",
  "AnswerReply",
  "handlers",
  "onElicit",
  "onSample",
];

function asciiWord(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 ||
    c === 36;
}

let identifierRe: RegExp | undefined;
let startRe: RegExp | undefined;
let partRe: RegExp | undefined;
const unicodeIdentifier = () =>
  identifierRe ??= /^[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*$/u;
const unicodeStart = () => startRe ??= /^[\p{ID_Start}$_]/u;
const unicodePart = () => partRe ??= /^[\p{ID_Continue}$\u200C\u200D]$/u;

/** Orders strings by UTF-16 code units as `sort()` does, whatever the locale: `sort(compare)`. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// Strict mode is where namespaces, modules and classes are, so its words count.
const RESERVED = new Set(
  ("break case catch class const continue debugger default delete do else enum export extends " +
    "false finally for function if import in instanceof new null return super switch this throw " +
    "true try typeof var void while with implements interface let package private protected " +
    "public static yield await arguments eval __proto__").split(" "),
);

// Names a namespace must not take because scripts already have them as globals (a server called
// "search" must not shadow search()), and the runtime's own top-level names.
const TAKEN = new Set([
  ..."undefined NaN Infinity globalThis tools args Deno process console".split(" "),
  ...RUNTIME_NAMES,
]);

// Names a type alias cannot take, or must not take because generated code refers to the global
// of that name from inside the namespace.
const RESERVED_TYPE_NAMES = new Set(
  ("any bigint boolean never number object string symbol undefined unknown Promise RawResult " +
    "Record ToolError ToolResult").split(" "),
);
