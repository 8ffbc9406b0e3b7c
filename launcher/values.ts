// Turning script values into JSON, or saying precisely why they cannot be. Erasable TypeScript.

/** Renders any value the way the runtime's console would (Deno.inspect, Bun.inspect, util.inspect). */
export type Inspect = (value: unknown) => string;

function kind(value: object): string {
  const name = value.constructor?.name;
  return name ? `a ${name}` : "an object without a prototype";
}

const NOT_JSON: Record<string, string> = {
  Map: "convert it with Object.fromEntries(map)",
  Set: "convert it with [...set]",
  WeakMap: "JSON cannot hold it",
  WeakSet: "JSON cannot hold it",
  Promise: "did you forget an await?",
  ArrayBuffer: "write binary data to a file and return its path",
  SharedArrayBuffer: "write binary data to a file and return its path",
  DataView: "write binary data to a file and return its path",
};

/**
 * Why `value` is not faithfully JSON, naming the first offending path (`result.items[2]`), or
 * undefined when `JSON.stringify` keeps everything that matters. `undefined` inside an object is
 * allowed (JSON drops the key); functions, symbols, bigints, non-finite numbers, circular
 * references and Map/Set/binary values are not.
 */
export function jsonProblem(value: unknown, path: string): string | undefined {
  const seen = new Set<object>();
  let visited = 0;
  const walk = (v: unknown, at: string): string | undefined => {
    if (++visited > 1_000_000) return undefined;
    switch (typeof v) {
      case "string":
      case "boolean":
        return undefined;
      case "number":
        return Number.isFinite(v) ? undefined : `${at} is ${v}, which JSON cannot hold`;
      case "bigint":
        return `${at} is a bigint (${v}n): return String(value) or Number(value)`;
      case "symbol":
        return `${at} is a symbol, which JSON cannot hold`;
      case "function":
        return `${at} is a function${v.name ? ` (${v.name})` : ""}: call it, or leave it out`;
      case "undefined":
        return undefined;
    }
    if (v === null) return undefined;
    const o = v as Record<string, unknown>;
    if (o instanceof String || o instanceof Number || o instanceof Boolean) {
      return walk(o.valueOf(), at);
    }
    if (seen.has(o)) return `${at} refers back to itself (a circular structure)`;
    if (typeof o.toJSON === "function") return undefined;
    const name = o.constructor?.name ?? "";
    if (Object.hasOwn(NOT_JSON, name)) return `${at} is ${kind(o)}: ${NOT_JSON[name]}`;
    if (ArrayBuffer.isView(o)) {
      return `${at} is ${kind(o)} (binary): write it to a file and return the path`;
    }
    seen.add(o);
    try {
      if (Array.isArray(o)) {
        for (let i = 0; i < o.length; i++) {
          const p = o[i] === undefined ? undefined : walk(o[i], `${at}[${i}]`);
          if (p) return p;
        }
        return undefined;
      }
      for (const key of Object.keys(o)) {
        const child = o[key];
        if (child === undefined) continue;
        const p = walk(
          child,
          /^[A-Za-z_$][\w$]*$/.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`,
        );
        if (p) return p;
      }
      return undefined;
    } finally {
      seen.delete(o);
    }
  };
  return walk(value, path);
}

/** A boxed primitive (the client boxes string results to carry `.raw`) as its primitive. */
export function unbox(value: unknown): unknown {
  if (value instanceof String || value instanceof Number || value instanceof Boolean) {
    return value.valueOf();
  }
  return value;
}

/** An Error as data: name, message, stack, and its own fields (code, cause…). */
export function errorData(error: Error): Record<string, unknown> {
  const out: Record<string, unknown> = { name: error.name, message: error.message };
  for (const key of Object.keys(error)) {
    out[key] = jsonSafe((error as unknown as Record<string, unknown>)[key]);
  }
  if (error.stack) out.stack = error.stack;
  return out;
}

/**
 * A copy of `value` that `JSON.stringify` renders without throwing or silently losing it: Errors
 * become {name, message, stack}, bigints strings, Map/Set plain data, binary a short description,
 * cycles `"[Circular]"`.
 */
export function jsonSafe(value: unknown, seen: Set<object> = new Set()): unknown {
  switch (typeof value) {
    case "bigint":
      return `${value}n`;
    case "symbol":
      return value.toString();
    case "function":
      return `[Function ${value.name || "anonymous"}]`;
    case "number":
      return Number.isFinite(value) ? value : String(value);
    case "object":
      break;
    default:
      return value;
  }
  if (value === null) return null;
  const o = value as Record<string, unknown>;
  if (o instanceof String || o instanceof Number || o instanceof Boolean) return o.valueOf();
  if (seen.has(o)) return "[Circular]";
  if (o instanceof Error) return errorData(o);
  if (typeof o.toJSON === "function") return o;
  if (ArrayBuffer.isView(o)) return `[${o.constructor?.name ?? "binary"} ${o.byteLength} bytes]`;
  seen.add(o);
  try {
    if (o instanceof Map) {
      return Object.fromEntries([...o].map(([k, v]) => [String(k), jsonSafe(v, seen)]));
    }
    if (o instanceof Set) return [...o].map((v) => jsonSafe(v, seen));
    if (Array.isArray(o)) return o.map((v) => jsonSafe(v, seen));
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(o)) out[key] = jsonSafe(o[key], seen);
    return out;
  } finally {
    seen.delete(o);
  }
}

/**
 * Console-style formatting: `%s %d %i %f %j %o %O %c %%` in a leading string are filled from the
 * arguments; what is left is appended, strings as they are and anything else inspected.
 */
export function formatArgs(args: readonly unknown[], inspect: Inspect): string {
  if (args.length === 0) return "";
  const rest = [...args];
  let head = "";
  if (typeof rest[0] === "string") {
    const fmt = rest.shift() as string;
    head = fmt.replace(/%([sdifjoOc%])/g, (whole, spec: string) => {
      if (spec === "%") return "%";
      if (rest.length === 0) return whole;
      const v = rest.shift();
      switch (spec) {
        case "s":
          return typeof v === "string"
            ? v
            : typeof v === "object" && v !== null
            ? inspect(v)
            : String(v);
        case "d":
        case "i": {
          const n = typeof v === "bigint" ? v : Number(v);
          return typeof n === "bigint" ? `${n}n` : String(spec === "i" ? Math.trunc(n) : n);
        }
        case "f":
          return String(Number(v));
        case "j":
          try {
            return JSON.stringify(v);
          } catch {
            return "[Circular]";
          }
        case "c":
          return "";
        default:
          return inspect(v);
      }
    });
  }
  const tail = rest.map((v) => (typeof v === "string" ? v : inspect(v)));
  return [...(typeof args[0] === "string" ? [head] : []), ...tail].join(" ");
}
