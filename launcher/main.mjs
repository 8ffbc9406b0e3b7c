// values.ts
function kind(value) {
  const name = value.constructor?.name;
  return name ? `a ${name}` : "an object without a prototype";
}
var NOT_JSON = {
  Map: "convert it with Object.fromEntries(map)",
  Set: "convert it with [...set]",
  WeakMap: "JSON cannot hold it",
  WeakSet: "JSON cannot hold it",
  Promise: "did you forget an await?",
  ArrayBuffer: "write binary data to a file and return its path",
  SharedArrayBuffer: "write binary data to a file and return its path",
  DataView: "write binary data to a file and return its path",
};
function jsonProblem(value, path) {
  const seen = /* @__PURE__ */ new Set();
  let visited = 0;
  const walk = (v, at) => {
    if (++visited > 1e6) return void 0;
    switch (typeof v) {
      case "string":
      case "boolean":
        return void 0;
      case "number":
        return Number.isFinite(v) ? void 0 : `${at} is ${v}, which JSON cannot hold`;
      case "bigint":
        return `${at} is a bigint (${v}n): return String(value) or Number(value)`;
      case "symbol":
        return `${at} is a symbol, which JSON cannot hold`;
      case "function":
        return `${at} is a function${v.name ? ` (${v.name})` : ""}: call it, or leave it out`;
      case "undefined":
        return void 0;
    }
    if (v === null) return void 0;
    const o = v;
    if (o instanceof String || o instanceof Number || o instanceof Boolean) {
      return walk(o.valueOf(), at);
    }
    if (seen.has(o)) return `${at} refers back to itself (a circular structure)`;
    if (typeof o.toJSON === "function") return void 0;
    const name = o.constructor?.name ?? "";
    if (Object.hasOwn(NOT_JSON, name)) return `${at} is ${kind(o)}: ${NOT_JSON[name]}`;
    if (ArrayBuffer.isView(o)) {
      return `${at} is ${kind(o)} (binary): write it to a file and return the path`;
    }
    seen.add(o);
    try {
      if (Array.isArray(o)) {
        for (let i = 0; i < o.length; i++) {
          const p = o[i] === void 0 ? void 0 : walk(o[i], `${at}[${i}]`);
          if (p) return p;
        }
        return void 0;
      }
      for (const key of Object.keys(o)) {
        const child = o[key];
        if (child === void 0) continue;
        const p = walk(
          child,
          /^[A-Za-z_$][\w$]*$/.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`,
        );
        if (p) return p;
      }
      return void 0;
    } finally {
      seen.delete(o);
    }
  };
  return walk(value, path);
}
function unbox(value) {
  if (value instanceof String || value instanceof Number || value instanceof Boolean) {
    return value.valueOf();
  }
  return value;
}
function errorData(error) {
  const out = {
    name: error.name,
    message: error.message,
  };
  for (const key of Object.keys(error)) {
    out[key] = jsonSafe(error[key]);
  }
  if (error.stack) out.stack = error.stack;
  return out;
}
function jsonSafe(value, seen = /* @__PURE__ */ new Set()) {
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
  const o = value;
  if (o instanceof String || o instanceof Number || o instanceof Boolean) return o.valueOf();
  if (seen.has(o)) return "[Circular]";
  if (o instanceof Error) return errorData(o);
  if (typeof o.toJSON === "function") return o;
  if (ArrayBuffer.isView(o)) return `[${o.constructor?.name ?? "binary"} ${o.byteLength} bytes]`;
  seen.add(o);
  try {
    if (o instanceof Map) {
      return Object.fromEntries([
        ...o,
      ].map(([k, v]) => [
        String(k),
        jsonSafe(v, seen),
      ]));
    }
    if (o instanceof Set) {
      return [
        ...o,
      ].map((v) => jsonSafe(v, seen));
    }
    if (Array.isArray(o)) return o.map((v) => jsonSafe(v, seen));
    const out = {};
    for (const key of Object.keys(o)) out[key] = jsonSafe(o[key], seen);
    return out;
  } finally {
    seen.delete(o);
  }
}
function formatArgs(args, inspect) {
  if (args.length === 0) return "";
  const rest = [
    ...args,
  ];
  let head = "";
  if (typeof rest[0] === "string") {
    const fmt = rest.shift();
    head = fmt.replace(/%([sdifjoOc%])/g, (whole, spec) => {
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
  const tail = rest.map((v) => typeof v === "string" ? v : inspect(v));
  return [
    ...typeof args[0] === "string"
      ? [
        head,
      ]
      : [],
    ...tail,
  ].join(" ");
}

// log.ts
var LEVELS = [
  "debug",
  "info",
  "warn",
  "error",
];
var RANK = {
  debug: 0,
  info: 1,
  warn: 2,
  error: 3,
};
var RESERVED = /* @__PURE__ */ new Set([
  "ts",
  "level",
  "msg",
  "template",
  "args",
  "source",
  "console",
]);
var PLACEHOLDER = /\{\{|\}\}|\{([A-Za-z_$][\w$.-]*)\}/g;
function lookup(attrs, name) {
  if (Object.hasOwn(attrs, name)) {
    return {
      found: true,
      value: attrs[name],
    };
  }
  let at = attrs;
  for (const part of name.split(".")) {
    if (at === null || typeof at !== "object" || !Object.hasOwn(at, part)) {
      return {
        found: false,
      };
    }
    at = at[part];
  }
  return {
    found: true,
    value: at,
  };
}
function show(value) {
  if (typeof value === "string") return value;
  if (value === null || typeof value !== "object") return String(value);
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  try {
    return JSON.stringify(jsonSafe(value));
  } catch {
    return String(value);
  }
}
function interpolate(template, attrs) {
  let templated = false;
  const msg = template.replace(PLACEHOLDER, (whole, name) => {
    templated = true;
    if (whole === "{{") return "{";
    if (whole === "}}") return "}";
    const hit = lookup(attrs, name);
    return hit.found ? show(hit.value) : whole;
  });
  return {
    msg,
    templated,
  };
}
function isPlainObject(value) {
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
function createLogger(options, bound = {}) {
  const min = RANK[options.level] ?? 1;
  const record = (level, msg, rest) => {
    if (RANK[level] < min) return;
    const attrs = {
      ...bound,
    };
    let args = rest;
    if (rest.length > 0 && isPlainObject(rest[0])) {
      Object.assign(attrs, rest[0]);
      args = rest.slice(1);
    }
    let text;
    if (typeof msg === "string") text = msg;
    else if (msg instanceof Error) {
      text = `${msg.name}: ${msg.message}`;
      args = [
        msg,
        ...args,
      ];
    } else text = options.inspect(msg);
    const { msg: filled, templated } = interpolate(text, attrs);
    const out = {
      ts: (/* @__PURE__ */ new Date()).toISOString(),
      level,
      msg: filled,
    };
    if (templated) out.template = text;
    for (const [key, value] of Object.entries(attrs)) {
      if (value === void 0) continue;
      out[RESERVED.has(key) ? `_${key}` : key] = value instanceof Error
        ? errorData(value)
        : jsonSafe(value);
    }
    if (args.length > 0) out.args = args.map((a) => jsonSafe(a));
    if (RANK[level] >= 2 && options.callSite) {
      const site = options.callSite();
      if (site) out.source = site;
    }
    options.write(out);
  };
  const log = (msg, ...rest) => record("info", msg, rest);
  for (const level of LEVELS) {
    Object.defineProperty(log, level, {
      value: (msg, ...rest) => record(level, msg, rest),
      enumerable: true,
    });
  }
  Object.defineProperty(log, "with", {
    value: (attrs) =>
      createLogger(options, {
        ...bound,
        ...attrs,
      }),
  });
  Object.defineProperty(log, "level", {
    value: options.level,
    enumerable: true,
  });
  return log;
}

// failure.ts
var FRAME = /^\s*at (?:.*? \()?(.+?):(\d+):(\d+)\)?\s*$/;
function toPath(file) {
  if (!file.startsWith("file://")) return file;
  try {
    return decodeURIComponent(new URL(file).pathname);
  } catch {
    return file;
  }
}
function isInternal(file, ctx) {
  return /^(node|ext|bun|internal|native)[:/]|^\[|^<anonymous>$|^native$/.test(file) ||
    file.startsWith(ctx.launcherDir.endsWith("/") ? ctx.launcherDir : ctx.launcherDir + "/");
}
function frames(stack) {
  const out = [];
  for (const line of stack.split("\n")) {
    const m = FRAME.exec(line);
    if (m) {
      out.push({
        line,
        file: toPath(m[1]),
        lineNo: Number(m[2]),
        col: Number(m[3]),
      });
    }
  }
  return out;
}
function userLocation(stack, ctx) {
  const all = frames(stack).filter((f) => !isInternal(f.file, ctx));
  const pick = all.find((f) => f.file !== ctx.client) ?? all[0];
  return pick
    ? {
      file: pick.file,
      line: pick.lineNo,
      col: pick.col,
    }
    : void 0;
}
function cleanStack(stack, ctx) {
  return stack.split("\n").filter((line) => {
    const m = FRAME.exec(line);
    return !m || !isInternal(toPath(m[1]), ctx);
  }).join("\n");
}
function splitName(name, message) {
  const m = /^([A-Z]\w*(?:Error|Exception)): ([\s\S]*)$/.exec(message);
  return m
    ? {
      name: m[1],
      message: m[2],
    }
    : {
      name,
      message,
    };
}
function syntaxLocation(error, message) {
  const pos = error.position;
  if (pos && typeof pos.file === "string" && typeof pos.line === "number") {
    return {
      file: toPath(pos.file),
      line: pos.line,
      col: pos.column,
    };
  }
  const deno = /\n\s*at (\S+?):(\d+):(\d+)\s*$/.exec(message);
  if (deno) {
    return {
      file: toPath(deno[1]),
      line: Number(deno[2]),
      col: Number(deno[3]),
    };
  }
  const stack = typeof error.stack === "string" ? error.stack : "";
  const node = /^(.+?):(\d+)\n((?:.*\n)*?)(\s*)\^/.exec(stack);
  if (node) {
    return {
      file: toPath(node[1]),
      line: Number(node[2]),
      col: node[4].length + 1,
    };
  }
  return void 0;
}
function describeFailure(error, ctx, importing = false) {
  if (!(error instanceof Object)) {
    return {
      kind: "uncaught",
      name: "Uncaught",
      message: describeThrown(error),
    };
  }
  const e = error;
  const rawName = typeof e.name === "string" ? e.name : "Error";
  const rawMessage = typeof e.message === "string" ? e.message : String(error);
  let { name, message } = splitName(rawName, rawMessage);
  const stack = typeof e.stack === "string" ? e.stack : "";
  if (importing) {
    const syntax = name === "SyntaxError" || rawName === "BuildMessage";
    const missing = rawName === "ResolveMessage" || e.code === "ERR_MODULE_NOT_FOUND" ||
      /^Module not found\b/.test(message);
    if (syntax || missing) {
      const location2 = syntaxLocation(e, rawMessage) ?? userLocation(stack, ctx);
      return {
        kind: syntax ? "syntax" : "load",
        name: syntax ? "SyntaxError" : name,
        message: message.split("\n")[0].trim(),
        ...location2
          ? {
            location: location2,
          }
          : {},
      };
    }
  }
  if (rawName === "BuildMessage") name = "SyntaxError";
  const location = userLocation(stack, ctx);
  return {
    kind: "uncaught",
    name,
    message,
    ...location
      ? {
        location,
      }
      : {},
    ...stack
      ? {
        stack: cleanStack(stack, ctx),
      }
      : {},
  };
}
function describeThrown(value) {
  try {
    return `threw ${typeof value === "string" ? JSON.stringify(value) : String(value)}`;
  } catch {
    return "threw a value that cannot be shown";
  }
}

// protocol.ts
var RECORD_MARK = "";
var LAUNCH_VARIABLE = "_MCPX_LAUNCH";
var EXIT_FAILED = 1;
var EXIT_USAGE = 2;

// runtime.ts
var RANK2 = {
  debug: 0,
  info: 1,
  warn: 2,
  error: 3,
};
function fileUrl(path) {
  return "file://" + path.split("/").map(encodeURIComponent).join("/");
}
function install(target, name, value) {
  Object.defineProperty(target, name, {
    value,
    writable: true,
    configurable: true,
    enumerable: false,
  });
}
function named(name, fn) {
  Object.defineProperty(fn, "name", {
    value: name,
  });
  return fn;
}
function captureConsole(host, record, min) {
  const c = console;
  const toRecord = (level, prefix = "") => (...args) => {
    if (RANK2[level] < min) return;
    record({
      ts: (/* @__PURE__ */ new Date()).toISOString(),
      level,
      msg: prefix + formatArgs(args, host.inspect),
      ...args.length > 0
        ? {
          args: args.map((a) => jsonSafe(a)),
        }
        : {},
      console: true,
    });
  };
  for (
    const level of [
      "error",
      "warn",
      "info",
      "debug",
    ]
  ) {
    c[level] = named(level, toRecord(level));
  }
  const trace = toRecord("debug", "Trace: ");
  c.trace = named("trace", (...args) => {
    const stack = (new Error().stack ?? "").split("\n").slice(2).join("\n");
    trace(
      ...args,
      ...stack
        ? [
          "\n" + stack,
        ]
        : [],
    );
  });
  const failed = toRecord("error", "Assertion failed");
  c.assert = named("assert", (condition, ...args) => {
    if (!condition) {
      failed(
        ...args.length
          ? [
            ":",
            ...args,
          ]
          : [],
      );
    }
  });
  if (!host.routeConsole) return;
  let indent = "";
  const print = (text) =>
    host.out((indent ? text.split("\n").map((l) => indent + l).join("\n") : text) + "\n");
  const log = (...args) => print(formatArgs(args, host.inspect));
  c.log = named("log", log);
  c.dir = named("dir", (value) => print(host.inspect(value)));
  c.dirxml = named("dirxml", log);
  c.table = named("table", (data) => print(host.inspect(data)));
  c.group = named("group", (...args) => {
    if (args.length) log(...args);
    indent += "  ";
  });
  c.groupCollapsed = named("groupCollapsed", c.group);
  c.groupEnd = named("groupEnd", () => void (indent = indent.slice(2)));
  const counts = /* @__PURE__ */ new Map();
  c.count = named("count", (label = "default") => {
    const n = (counts.get(label) ?? 0) + 1;
    counts.set(label, n);
    print(`${label}: ${n}`);
  });
  c.countReset = named("countReset", (label = "default") => void counts.delete(label));
  const timers = /* @__PURE__ */ new Map();
  const elapsed = (label) => `${label}: ${(performance.now() - timers.get(label)).toFixed(3)}ms`;
  c.time = named("time", (label = "default") => void timers.set(label, performance.now()));
  c.timeLog = named("timeLog", (label = "default", ...args) => {
    if (timers.has(label)) log(elapsed(label), ...args);
  });
  c.timeEnd = named("timeEnd", (label = "default") => {
    if (!timers.has(label)) return;
    print(elapsed(label));
    timers.delete(label);
  });
}
function renderResult(value) {
  const v = unbox(value);
  if (typeof v === "string") return v.endsWith("\n") ? v : v + "\n";
  return JSON.stringify(v, null, 2) + "\n";
}
function exportsOf(mod) {
  return Object.keys(mod).filter((k) => typeof mod[k] === "function").sort();
}
async function launch(host, cfg) {
  const fctx = {
    script: cfg.script,
    launcherDir: cfg.launcherDir,
    ...cfg.client
      ? {
        client: cfg.client,
      }
      : {},
  };
  let finished = false;
  const write = (line) => host.err(RECORD_MARK + JSON.stringify(line) + "\n");
  const control = (c) => write(c);
  const finish = (code) => {
    if (finished) return;
    finished = true;
    host.exit(code);
  };
  const fail = (failure, code = EXIT_FAILED) => {
    if (finished) return;
    control({
      mcpx: "error",
      failure,
    });
    finish(code);
  };
  if (cfg.env) host.setEnv(cfg.env);
  host.setArgs(cfg.args, cfg.script);
  let namespaces = {};
  const explain = (failure) => {
    if (failure.kind !== "uncaught" || !cfg.client) return failure;
    const names = Object.keys(namespaces);
    const undefinedName = /^(\w+) is not defined/.exec(failure.message)?.[1];
    if (undefinedName && !names.includes(undefinedName)) {
      return {
        ...failure,
        hint: `no namespace "${undefinedName}"; the namespaces are ${
          names.join(", ") || "(none)"
        } (\`mcpx ls\`)`,
      };
    }
    const call = /^(\w+)\.(\w+) is not a function/.exec(failure.message);
    const ns = call && names.includes(call[1]) ? namespaces[call[1]] : void 0;
    if (call && ns) {
      const tools = Object.keys(ns);
      return {
        ...failure,
        hint: tools.length
          ? `${call[1]} has no tool "${call[2]}"; its tools are ${tools.join(", ")} (\`mcpx types ${
            call[1]
          }\`)`
          : `the client has no tools for ${
            call[1]
          }: it was never listed, or listing failed (\`mcpx ls\` says which; \`mcpx refresh\` lists it)`,
      };
    }
    return failure;
  };
  host.onUncaught((error) => fail(explain(describeFailure(error, fctx))));
  const g2 = globalThis;
  const callSite = () => {
    const at = userLocation(new Error().stack ?? "", fctx);
    return at ? `${at.file}:${at.line}${at.col ? `:${at.col}` : ""}` : void 0;
  };
  const log = createLogger({
    write,
    level: cfg.logLevel,
    inspect: host.inspect,
    callSite,
  });
  const emit = named("emit", (value) => {
    const problem = jsonProblem(value, "the value");
    if (problem) throw new TypeError(`emit() takes JSON values: ${problem}`);
    if (cfg.json) {
      control({
        mcpx: "emit",
        value: unbox(value),
      });
    } else host.out(JSON.stringify(unbox(value)) + "\n");
  });
  install(g2, "log", log);
  install(g2, "emit", emit);
  install(g2, "args", [
    ...cfg.args,
  ]);
  captureConsole(host, write, RANK2[cfg.logLevel] ?? 1);
  if (cfg.client) {
    let client;
    try {
      client = await import(fileUrl(cfg.client));
    } catch (error) {
      return fail(describeFailure(error, fctx, true));
    }
    namespaces = client.default ?? {};
    const globals = client.__mcpxGlobals ?? {};
    for (const [name, value] of Object.entries(globals)) {
      if (!(name in g2)) install(g2, name, value);
    }
  }
  let mod;
  try {
    mod = await import(fileUrl(cfg.script));
  } catch (error) {
    return fail(explain(describeFailure(error, fctx, true)));
  }
  if (finished) return;
  let result;
  let what = "the default export";
  try {
    if (cfg.export !== void 0) {
      what = `export "${cfg.export}"`;
      const fn = mod[cfg.export];
      if (typeof fn !== "function") {
        const exports = exportsOf(mod);
        return fail({
          kind: "export",
          name: "UsageError",
          message: `${fn === void 0 ? "There is no" : "Not a function:"} export "${cfg.export}"; ${
            exports.length
              ? `the functions it exports: ${exports.join(", ")}`
              : "it exports no functions"
          }`,
          exports,
        }, EXIT_USAGE);
      }
      result = await fn(...cfg.args);
    } else if (typeof mod.default === "function") {
      result = await mod.default([
        ...cfg.args,
      ]);
    }
  } catch (error) {
    return fail(explain(describeFailure(error, fctx)));
  }
  if (finished) return;
  if (result !== void 0) {
    const problem = jsonProblem(result, "the result");
    if (problem) {
      return fail({
        kind: "result",
        name: "TypeError",
        message: `${what[0].toUpperCase()}${
          what.slice(1)
        } returned a value that is not JSON: ${problem}`,
      });
    }
    if (cfg.json) {
      control({
        mcpx: "result",
        value: unbox(result),
      });
    } else host.out(renderResult(result));
  }
  finish(host.exitCode());
}

// main.ts
var g = globalThis;
function denoHost() {
  const encoder = new TextEncoder();
  const writeAll = (file, text) => {
    let bytes = encoder.encode(text);
    while (bytes.length > 0) bytes = bytes.subarray(file.writeSync(bytes));
  };
  return {
    out: (text) => writeAll(g.Deno.stdout, text),
    err: (text) => writeAll(g.Deno.stderr, text),
    exit: (code) => g.Deno.exit(code),
    inspect: (value) =>
      g.Deno.inspect(value, {
        colors: false,
      }),
    setArgs() {
    },
    setEnv(env) {
      for (const [key, value] of Object.entries(env)) g.Deno.env.set(key, value);
    },
    onUncaught(handler) {
      g.addEventListener("error", (event) => {
        event.preventDefault();
        handler(event.error ?? new Error(event.message));
      });
      g.addEventListener("unhandledrejection", (event) => {
        event.preventDefault();
        handler(event.reason);
      });
    },
    exitCode: () => Number(g.Deno.exitCode) || 0,
    routeConsole: false,
  };
}
function nodeHost() {
  const process = g.process;
  const util = process.getBuiltinModule?.("node:util");
  const inspect = g.Bun ? (value) => g.Bun.inspect(value) : util
    ? (value) =>
      util.inspect(value, {
        colors: false,
      })
    : (value) => String(value);
  return {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    exit(code) {
      process.exitCode = code;
      process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
    },
    inspect,
    setArgs(args, script) {
      process.argv = [
        process.argv[0],
        script,
        ...args,
      ];
    },
    setEnv(env) {
      Object.assign(process.env, env);
    },
    onUncaught(handler) {
      process.on("uncaughtException", handler);
      process.on("unhandledRejection", handler);
    },
    exitCode: () => Number(process.exitCode) || 0,
    routeConsole: false,
  };
}
var raw = g.Deno ? g.Deno.env.get(LAUNCH_VARIABLE) : g.process.env[LAUNCH_VARIABLE];
if (g.Deno) g.Deno.env.delete(LAUNCH_VARIABLE);
else delete g.process.env[LAUNCH_VARIABLE];
if (!raw) throw new Error(`launcher/main.ts is started by mcpx, with ${LAUNCH_VARIABLE} set`);
await launch(g.Deno ? denoHost() : nodeHost(), JSON.parse(raw));
//# sourceMappingURL=data:application/json;base64,ewogICJ2ZXJzaW9uIjogMywKICAic291cmNlcyI6IFsidmFsdWVzLnRzIiwgImxvZy50cyIsICJmYWlsdXJlLnRzIiwgInByb3RvY29sLnRzIiwgInJ1bnRpbWUudHMiLCAibWFpbi50cyJdLAogICJzb3VyY2VzQ29udGVudCI6IFsiLy8gVHVybmluZyBzY3JpcHQgdmFsdWVzIGludG8gSlNPTiwgb3Igc2F5aW5nIHByZWNpc2VseSB3aHkgdGhleSBjYW5ub3QgYmUuIEVyYXNhYmxlIFR5cGVTY3JpcHQuXG5cbi8qKiBSZW5kZXJzIGFueSB2YWx1ZSB0aGUgd2F5IHRoZSBydW50aW1lJ3MgY29uc29sZSB3b3VsZCAoRGVuby5pbnNwZWN0LCBCdW4uaW5zcGVjdCwgdXRpbC5pbnNwZWN0KS4gKi9cbmV4cG9ydCB0eXBlIEluc3BlY3QgPSAodmFsdWU6IHVua25vd24pID0+IHN0cmluZztcblxuZnVuY3Rpb24ga2luZCh2YWx1ZTogb2JqZWN0KTogc3RyaW5nIHtcbiAgY29uc3QgbmFtZSA9IHZhbHVlLmNvbnN0cnVjdG9yPy5uYW1lO1xuICByZXR1cm4gbmFtZSA/IGBhICR7bmFtZX1gIDogXCJhbiBvYmplY3Qgd2l0aG91dCBhIHByb3RvdHlwZVwiO1xufVxuXG5jb25zdCBOT1RfSlNPTjogUmVjb3JkPHN0cmluZywgc3RyaW5nPiA9IHtcbiAgTWFwOiBcImNvbnZlcnQgaXQgd2l0aCBPYmplY3QuZnJvbUVudHJpZXMobWFwKVwiLFxuICBTZXQ6IFwiY29udmVydCBpdCB3aXRoIFsuLi5zZXRdXCIsXG4gIFdlYWtNYXA6IFwiSlNPTiBjYW5ub3QgaG9sZCBpdFwiLFxuICBXZWFrU2V0OiBcIkpTT04gY2Fubm90IGhvbGQgaXRcIixcbiAgUHJvbWlzZTogXCJkaWQgeW91IGZvcmdldCBhbiBhd2FpdD9cIixcbiAgQXJyYXlCdWZmZXI6IFwid3JpdGUgYmluYXJ5IGRhdGEgdG8gYSBmaWxlIGFuZCByZXR1cm4gaXRzIHBhdGhcIixcbiAgU2hhcmVkQXJyYXlCdWZmZXI6IFwid3JpdGUgYmluYXJ5IGRhdGEgdG8gYSBmaWxlIGFuZCByZXR1cm4gaXRzIHBhdGhcIixcbiAgRGF0YVZpZXc6IFwid3JpdGUgYmluYXJ5IGRhdGEgdG8gYSBmaWxlIGFuZCByZXR1cm4gaXRzIHBhdGhcIixcbn07XG5cbi8qKlxuICogV2h5IGB2YWx1ZWAgaXMgbm90IGZhaXRoZnVsbHkgSlNPTiwgbmFtaW5nIHRoZSBmaXJzdCBvZmZlbmRpbmcgcGF0aCAoYHJlc3VsdC5pdGVtc1syXWApLCBvclxuICogdW5kZWZpbmVkIHdoZW4gYEpTT04uc3RyaW5naWZ5YCBrZWVwcyBldmVyeXRoaW5nIHRoYXQgbWF0dGVycy4gYHVuZGVmaW5lZGAgaW5zaWRlIGFuIG9iamVjdCBpc1xuICogYWxsb3dlZCAoSlNPTiBkcm9wcyB0aGUga2V5KTsgZnVuY3Rpb25zLCBzeW1ib2xzLCBiaWdpbnRzLCBub24tZmluaXRlIG51bWJlcnMsIGNpcmN1bGFyXG4gKiByZWZlcmVuY2VzIGFuZCBNYXAvU2V0L2JpbmFyeSB2YWx1ZXMgYXJlIG5vdC5cbiAqL1xuZXhwb3J0IGZ1bmN0aW9uIGpzb25Qcm9ibGVtKHZhbHVlOiB1bmtub3duLCBwYXRoOiBzdHJpbmcpOiBzdHJpbmcgfCB1bmRlZmluZWQge1xuICBjb25zdCBzZWVuID0gbmV3IFNldDxvYmplY3Q+KCk7XG4gIGxldCB2aXNpdGVkID0gMDtcbiAgY29uc3Qgd2FsayA9ICh2OiB1bmtub3duLCBhdDogc3RyaW5nKTogc3RyaW5nIHwgdW5kZWZpbmVkID0+IHtcbiAgICBpZiAoKyt2aXNpdGVkID4gMV8wMDBfMDAwKSByZXR1cm4gdW5kZWZpbmVkO1xuICAgIHN3aXRjaCAodHlwZW9mIHYpIHtcbiAgICAgIGNhc2UgXCJzdHJpbmdcIjpcbiAgICAgIGNhc2UgXCJib29sZWFuXCI6XG4gICAgICAgIHJldHVybiB1bmRlZmluZWQ7XG4gICAgICBjYXNlIFwibnVtYmVyXCI6XG4gICAgICAgIHJldHVybiBOdW1iZXIuaXNGaW5pdGUodikgPyB1bmRlZmluZWQgOiBgJHthdH0gaXMgJHt2fSwgd2hpY2ggSlNPTiBjYW5ub3QgaG9sZGA7XG4gICAgICBjYXNlIFwiYmlnaW50XCI6XG4gICAgICAgIHJldHVybiBgJHthdH0gaXMgYSBiaWdpbnQgKCR7dn1uKTogcmV0dXJuIFN0cmluZyh2YWx1ZSkgb3IgTnVtYmVyKHZhbHVlKWA7XG4gICAgICBjYXNlIFwic3ltYm9sXCI6XG4gICAgICAgIHJldHVybiBgJHthdH0gaXMgYSBzeW1ib2wsIHdoaWNoIEpTT04gY2Fubm90IGhvbGRgO1xuICAgICAgY2FzZSBcImZ1bmN0aW9uXCI6XG4gICAgICAgIHJldHVybiBgJHthdH0gaXMgYSBmdW5jdGlvbiR7di5uYW1lID8gYCAoJHt2Lm5hbWV9KWAgOiBcIlwifTogY2FsbCBpdCwgb3IgbGVhdmUgaXQgb3V0YDtcbiAgICAgIGNhc2UgXCJ1bmRlZmluZWRcIjpcbiAgICAgICAgcmV0dXJuIHVuZGVmaW5lZDtcbiAgICB9XG4gICAgaWYgKHYgPT09IG51bGwpIHJldHVybiB1bmRlZmluZWQ7XG4gICAgY29uc3QgbyA9IHYgYXMgUmVjb3JkPHN0cmluZywgdW5rbm93bj47XG4gICAgaWYgKG8gaW5zdGFuY2VvZiBTdHJpbmcgfHwgbyBpbnN0YW5jZW9mIE51bWJlciB8fCBvIGluc3RhbmNlb2YgQm9vbGVhbikge1xuICAgICAgcmV0dXJuIHdhbGsoby52YWx1ZU9mKCksIGF0KTtcbiAgICB9XG4gICAgaWYgKHNlZW4uaGFzKG8pKSByZXR1cm4gYCR7YXR9IHJlZmVycyBiYWNrIHRvIGl0c2VsZiAoYSBjaXJjdWxhciBzdHJ1Y3R1cmUpYDtcbiAgICBpZiAodHlwZW9mIG8udG9KU09OID09PSBcImZ1bmN0aW9uXCIpIHJldHVybiB1bmRlZmluZWQ7XG4gICAgY29uc3QgbmFtZSA9IG8uY29uc3RydWN0b3I/Lm5hbWUgPz8gXCJcIjtcbiAgICBpZiAoT2JqZWN0Lmhhc093bihOT1RfSlNPTiwgbmFtZSkpIHJldHVybiBgJHthdH0gaXMgJHtraW5kKG8pfTogJHtOT1RfSlNPTltuYW1lXX1gO1xuICAgIGlmIChBcnJheUJ1ZmZlci5pc1ZpZXcobykpIHtcbiAgICAgIHJldHVybiBgJHthdH0gaXMgJHtraW5kKG8pfSAoYmluYXJ5KTogd3JpdGUgaXQgdG8gYSBmaWxlIGFuZCByZXR1cm4gdGhlIHBhdGhgO1xuICAgIH1cbiAgICBzZWVuLmFkZChvKTtcbiAgICB0cnkge1xuICAgICAgaWYgKEFycmF5LmlzQXJyYXkobykpIHtcbiAgICAgICAgZm9yIChsZXQgaSA9IDA7IGkgPCBvLmxlbmd0aDsgaSsrKSB7XG4gICAgICAgICAgY29uc3QgcCA9IG9baV0gPT09IHVuZGVmaW5lZCA/IHVuZGVmaW5lZCA6IHdhbGsob1tpXSwgYCR7YXR9WyR7aX1dYCk7XG4gICAgICAgICAgaWYgKHApIHJldHVybiBwO1xuICAgICAgICB9XG4gICAgICAgIHJldHVybiB1bmRlZmluZWQ7XG4gICAgICB9XG4gICAgICBmb3IgKGNvbnN0IGtleSBvZiBPYmplY3Qua2V5cyhvKSkge1xuICAgICAgICBjb25zdCBjaGlsZCA9IG9ba2V5XTtcbiAgICAgICAgaWYgKGNoaWxkID09PSB1bmRlZmluZWQpIGNvbnRpbnVlO1xuICAgICAgICBjb25zdCBwID0gd2FsayhcbiAgICAgICAgICBjaGlsZCxcbiAgICAgICAgICAvXltBLVphLXpfJF1bXFx3JF0qJC8udGVzdChrZXkpID8gYCR7YXR9LiR7a2V5fWAgOiBgJHthdH1bJHtKU09OLnN0cmluZ2lmeShrZXkpfV1gLFxuICAgICAgICApO1xuICAgICAgICBpZiAocCkgcmV0dXJuIHA7XG4gICAgICB9XG4gICAgICByZXR1cm4gdW5kZWZpbmVkO1xuICAgIH0gZmluYWxseSB7XG4gICAgICBzZWVuLmRlbGV0ZShvKTtcbiAgICB9XG4gIH07XG4gIHJldHVybiB3YWxrKHZhbHVlLCBwYXRoKTtcbn1cblxuLyoqIEEgYm94ZWQgcHJpbWl0aXZlICh0aGUgY2xpZW50IGJveGVzIHN0cmluZyByZXN1bHRzIHRvIGNhcnJ5IGAucmF3YCkgYXMgaXRzIHByaW1pdGl2ZS4gKi9cbmV4cG9ydCBmdW5jdGlvbiB1bmJveCh2YWx1ZTogdW5rbm93bik6IHVua25vd24ge1xuICBpZiAodmFsdWUgaW5zdGFuY2VvZiBTdHJpbmcgfHwgdmFsdWUgaW5zdGFuY2VvZiBOdW1iZXIgfHwgdmFsdWUgaW5zdGFuY2VvZiBCb29sZWFuKSB7XG4gICAgcmV0dXJuIHZhbHVlLnZhbHVlT2YoKTtcbiAgfVxuICByZXR1cm4gdmFsdWU7XG59XG5cbi8qKiBBbiBFcnJvciBhcyBkYXRhOiBuYW1lLCBtZXNzYWdlLCBzdGFjaywgYW5kIGl0cyBvd24gZmllbGRzIChjb2RlLCBjYXVzZeKApikuICovXG5leHBvcnQgZnVuY3Rpb24gZXJyb3JEYXRhKGVycm9yOiBFcnJvcik6IFJlY29yZDxzdHJpbmcsIHVua25vd24+IHtcbiAgY29uc3Qgb3V0OiBSZWNvcmQ8c3RyaW5nLCB1bmtub3duPiA9IHsgbmFtZTogZXJyb3IubmFtZSwgbWVzc2FnZTogZXJyb3IubWVzc2FnZSB9O1xuICBmb3IgKGNvbnN0IGtleSBvZiBPYmplY3Qua2V5cyhlcnJvcikpIHtcbiAgICBvdXRba2V5XSA9IGpzb25TYWZlKChlcnJvciBhcyB1bmtub3duIGFzIFJlY29yZDxzdHJpbmcsIHVua25vd24+KVtrZXldKTtcbiAgfVxuICBpZiAoZXJyb3Iuc3RhY2spIG91dC5zdGFjayA9IGVycm9yLnN0YWNrO1xuICByZXR1cm4gb3V0O1xufVxuXG4vKipcbiAqIEEgY29weSBvZiBgdmFsdWVgIHRoYXQgYEpTT04uc3RyaW5naWZ5YCByZW5kZXJzIHdpdGhvdXQgdGhyb3dpbmcgb3Igc2lsZW50bHkgbG9zaW5nIGl0OiBFcnJvcnNcbiAqIGJlY29tZSB7bmFtZSwgbWVzc2FnZSwgc3RhY2t9LCBiaWdpbnRzIHN0cmluZ3MsIE1hcC9TZXQgcGxhaW4gZGF0YSwgYmluYXJ5IGEgc2hvcnQgZGVzY3JpcHRpb24sXG4gKiBjeWNsZXMgYFwiW0NpcmN1bGFyXVwiYC5cbiAqL1xuZXhwb3J0IGZ1bmN0aW9uIGpzb25TYWZlKHZhbHVlOiB1bmtub3duLCBzZWVuOiBTZXQ8b2JqZWN0PiA9IG5ldyBTZXQoKSk6IHVua25vd24ge1xuICBzd2l0Y2ggKHR5cGVvZiB2YWx1ZSkge1xuICAgIGNhc2UgXCJiaWdpbnRcIjpcbiAgICAgIHJldHVybiBgJHt2YWx1ZX1uYDtcbiAgICBjYXNlIFwic3ltYm9sXCI6XG4gICAgICByZXR1cm4gdmFsdWUudG9TdHJpbmcoKTtcbiAgICBjYXNlIFwiZnVuY3Rpb25cIjpcbiAgICAgIHJldHVybiBgW0Z1bmN0aW9uICR7dmFsdWUubmFtZSB8fCBcImFub255bW91c1wifV1gO1xuICAgIGNhc2UgXCJudW1iZXJcIjpcbiAgICAgIHJldHVybiBOdW1iZXIuaXNGaW5pdGUodmFsdWUpID8gdmFsdWUgOiBTdHJpbmcodmFsdWUpO1xuICAgIGNhc2UgXCJvYmplY3RcIjpcbiAgICAgIGJyZWFrO1xuICAgIGRlZmF1bHQ6XG4gICAgICByZXR1cm4gdmFsdWU7XG4gIH1cbiAgaWYgKHZhbHVlID09PSBudWxsKSByZXR1cm4gbnVsbDtcbiAgY29uc3QgbyA9IHZhbHVlIGFzIFJlY29yZDxzdHJpbmcsIHVua25vd24+O1xuICBpZiAobyBpbnN0YW5jZW9mIFN0cmluZyB8fCBvIGluc3RhbmNlb2YgTnVtYmVyIHx8IG8gaW5zdGFuY2VvZiBCb29sZWFuKSByZXR1cm4gby52YWx1ZU9mKCk7XG4gIGlmIChzZWVuLmhhcyhvKSkgcmV0dXJuIFwiW0NpcmN1bGFyXVwiO1xuICBpZiAobyBpbnN0YW5jZW9mIEVycm9yKSByZXR1cm4gZXJyb3JEYXRhKG8pO1xuICBpZiAodHlwZW9mIG8udG9KU09OID09PSBcImZ1bmN0aW9uXCIpIHJldHVybiBvO1xuICBpZiAoQXJyYXlCdWZmZXIuaXNWaWV3KG8pKSByZXR1cm4gYFske28uY29uc3RydWN0b3I/Lm5hbWUgPz8gXCJiaW5hcnlcIn0gJHtvLmJ5dGVMZW5ndGh9IGJ5dGVzXWA7XG4gIHNlZW4uYWRkKG8pO1xuICB0cnkge1xuICAgIGlmIChvIGluc3RhbmNlb2YgTWFwKSB7XG4gICAgICByZXR1cm4gT2JqZWN0LmZyb21FbnRyaWVzKFsuLi5vXS5tYXAoKFtrLCB2XSkgPT4gW1N0cmluZyhrKSwganNvblNhZmUodiwgc2VlbildKSk7XG4gICAgfVxuICAgIGlmIChvIGluc3RhbmNlb2YgU2V0KSByZXR1cm4gWy4uLm9dLm1hcCgodikgPT4ganNvblNhZmUodiwgc2VlbikpO1xuICAgIGlmIChBcnJheS5pc0FycmF5KG8pKSByZXR1cm4gby5tYXAoKHYpID0+IGpzb25TYWZlKHYsIHNlZW4pKTtcbiAgICBjb25zdCBvdXQ6IFJlY29yZDxzdHJpbmcsIHVua25vd24+ID0ge307XG4gICAgZm9yIChjb25zdCBrZXkgb2YgT2JqZWN0LmtleXMobykpIG91dFtrZXldID0ganNvblNhZmUob1trZXldLCBzZWVuKTtcbiAgICByZXR1cm4gb3V0O1xuICB9IGZpbmFsbHkge1xuICAgIHNlZW4uZGVsZXRlKG8pO1xuICB9XG59XG5cbi8qKlxuICogQ29uc29sZS1zdHlsZSBmb3JtYXR0aW5nOiBgJXMgJWQgJWkgJWYgJWogJW8gJU8gJWMgJSVgIGluIGEgbGVhZGluZyBzdHJpbmcgYXJlIGZpbGxlZCBmcm9tIHRoZVxuICogYXJndW1lbnRzOyB3aGF0IGlzIGxlZnQgaXMgYXBwZW5kZWQsIHN0cmluZ3MgYXMgdGhleSBhcmUgYW5kIGFueXRoaW5nIGVsc2UgaW5zcGVjdGVkLlxuICovXG5leHBvcnQgZnVuY3Rpb24gZm9ybWF0QXJncyhhcmdzOiByZWFkb25seSB1bmtub3duW10sIGluc3BlY3Q6IEluc3BlY3QpOiBzdHJpbmcge1xuICBpZiAoYXJncy5sZW5ndGggPT09IDApIHJldHVybiBcIlwiO1xuICBjb25zdCByZXN0ID0gWy4uLmFyZ3NdO1xuICBsZXQgaGVhZCA9IFwiXCI7XG4gIGlmICh0eXBlb2YgcmVzdFswXSA9PT0gXCJzdHJpbmdcIikge1xuICAgIGNvbnN0IGZtdCA9IHJlc3Quc2hpZnQoKSBhcyBzdHJpbmc7XG4gICAgaGVhZCA9IGZtdC5yZXBsYWNlKC8lKFtzZGlmam9PYyVdKS9nLCAod2hvbGUsIHNwZWM6IHN0cmluZykgPT4ge1xuICAgICAgaWYgKHNwZWMgPT09IFwiJVwiKSByZXR1cm4gXCIlXCI7XG4gICAgICBpZiAocmVzdC5sZW5ndGggPT09IDApIHJldHVybiB3aG9sZTtcbiAgICAgIGNvbnN0IHYgPSByZXN0LnNoaWZ0KCk7XG4gICAgICBzd2l0Y2ggKHNwZWMpIHtcbiAgICAgICAgY2FzZSBcInNcIjpcbiAgICAgICAgICByZXR1cm4gdHlwZW9mIHYgPT09IFwic3RyaW5nXCJcbiAgICAgICAgICAgID8gdlxuICAgICAgICAgICAgOiB0eXBlb2YgdiA9PT0gXCJvYmplY3RcIiAmJiB2ICE9PSBudWxsXG4gICAgICAgICAgICA/IGluc3BlY3QodilcbiAgICAgICAgICAgIDogU3RyaW5nKHYpO1xuICAgICAgICBjYXNlIFwiZFwiOlxuICAgICAgICBjYXNlIFwiaVwiOiB7XG4gICAgICAgICAgY29uc3QgbiA9IHR5cGVvZiB2ID09PSBcImJpZ2ludFwiID8gdiA6IE51bWJlcih2KTtcbiAgICAgICAgICByZXR1cm4gdHlwZW9mIG4gPT09IFwiYmlnaW50XCIgPyBgJHtufW5gIDogU3RyaW5nKHNwZWMgPT09IFwiaVwiID8gTWF0aC50cnVuYyhuKSA6IG4pO1xuICAgICAgICB9XG4gICAgICAgIGNhc2UgXCJmXCI6XG4gICAgICAgICAgcmV0dXJuIFN0cmluZyhOdW1iZXIodikpO1xuICAgICAgICBjYXNlIFwialwiOlxuICAgICAgICAgIHRyeSB7XG4gICAgICAgICAgICByZXR1cm4gSlNPTi5zdHJpbmdpZnkodik7XG4gICAgICAgICAgfSBjYXRjaCB7XG4gICAgICAgICAgICByZXR1cm4gXCJbQ2lyY3VsYXJdXCI7XG4gICAgICAgICAgfVxuICAgICAgICBjYXNlIFwiY1wiOlxuICAgICAgICAgIHJldHVybiBcIlwiO1xuICAgICAgICBkZWZhdWx0OlxuICAgICAgICAgIHJldHVybiBpbnNwZWN0KHYpO1xuICAgICAgfVxuICAgIH0pO1xuICB9XG4gIGNvbnN0IHRhaWwgPSByZXN0Lm1hcCgodikgPT4gKHR5cGVvZiB2ID09PSBcInN0cmluZ1wiID8gdiA6IGluc3BlY3QodikpKTtcbiAgcmV0dXJuIFsuLi4odHlwZW9mIGFyZ3NbMF0gPT09IFwic3RyaW5nXCIgPyBbaGVhZF0gOiBbXSksIC4uLnRhaWxdLmpvaW4oXCIgXCIpO1xufVxuIiwgIi8vIFRoZSBzdHJ1Y3R1cmVkIGxvZ2dlciBzY3JpcHRzIGdldCBhcyBgbG9nYCwgYW5kIHRoZSBvbmUgcmVuZGVyZXIgaXRzIHJlY29yZHMgYXJlIHJlYWQgdGhyb3VnaC5cbi8vIEVyYXNhYmxlIFR5cGVTY3JpcHQsIG5vIHJ1bnRpbWUgQVBJczogdGhlIGhvc3QgaGFuZHMgaW4gaG93IHRvIHdyaXRlIGFuZCBpbnNwZWN0LlxuXG5pbXBvcnQgdHlwZSB7IExldmVsLCBMb2dSZWNvcmQgfSBmcm9tIFwiLi9wcm90b2NvbC50c1wiO1xuaW1wb3J0IHsgZXJyb3JEYXRhLCB0eXBlIEluc3BlY3QsIGpzb25TYWZlIH0gZnJvbSBcIi4vdmFsdWVzLnRzXCI7XG5cbi8qKiBMZXZlbHMgaW4gaW5jcmVhc2luZyBzZXZlcml0eS4gKi9cbmV4cG9ydCBjb25zdCBMRVZFTFM6IHJlYWRvbmx5IExldmVsW10gPSBbXCJkZWJ1Z1wiLCBcImluZm9cIiwgXCJ3YXJuXCIsIFwiZXJyb3JcIl07XG5jb25zdCBSQU5LOiBSZWNvcmQ8c3RyaW5nLCBudW1iZXI+ID0geyBkZWJ1ZzogMCwgaW5mbzogMSwgd2FybjogMiwgZXJyb3I6IDMgfTtcbi8qKiBSZWNvcmQgZmllbGRzIHRoYXQgYXJlIG5vdCBhdHRyaWJ1dGVzOyBhbiBhdHRyaWJ1dGUgd2l0aCBvbmUgb2YgdGhlc2UgbmFtZXMgZ2V0cyBhIGBfYC4gKi9cbmNvbnN0IFJFU0VSVkVEID0gbmV3IFNldChbXCJ0c1wiLCBcImxldmVsXCIsIFwibXNnXCIsIFwidGVtcGxhdGVcIiwgXCJhcmdzXCIsIFwic291cmNlXCIsIFwiY29uc29sZVwiXSk7XG5jb25zdCBQTEFDRUhPTERFUiA9IC9cXHtcXHt8XFx9XFx9fFxceyhbQS1aYS16XyRdW1xcdyQuLV0qKVxcfS9nO1xuXG4vKiogQSBsb2dnaW5nIGZ1bmN0aW9uOiBgbG9nKG1zZylgIGlzIGBsb2cuaW5mbyhtc2cpYC4gKi9cbmV4cG9ydCBpbnRlcmZhY2UgTG9nZ2VyIHtcbiAgKG1zZzogdW5rbm93biwgLi4ucmVzdDogdW5rbm93bltdKTogdm9pZDtcbiAgZGVidWcobXNnOiB1bmtub3duLCAuLi5yZXN0OiB1bmtub3duW10pOiB2b2lkO1xuICBpbmZvKG1zZzogdW5rbm93biwgLi4ucmVzdDogdW5rbm93bltdKTogdm9pZDtcbiAgd2Fybihtc2c6IHVua25vd24sIC4uLnJlc3Q6IHVua25vd25bXSk6IHZvaWQ7XG4gIGVycm9yKG1zZzogdW5rbm93biwgLi4ucmVzdDogdW5rbm93bltdKTogdm9pZDtcbiAgLyoqIEEgbG9nZ2VyIHdob3NlIHJlY29yZHMgYWxsIGNhcnJ5IGBhdHRyc2AgKGNhbGwgYXR0cmlidXRlcyB3aW4gb3ZlciBib3VuZCBvbmVzKS4gKi9cbiAgd2l0aChhdHRyczogUmVjb3JkPHN0cmluZywgdW5rbm93bj4pOiBMb2dnZXI7XG4gIC8qKiBUaGUgYWN0aXZlIHRocmVzaG9sZC4gKi9cbiAgcmVhZG9ubHkgbGV2ZWw6IExldmVsO1xufVxuXG4vKiogSG93IGEgbG9nZ2VyIHdyaXRlcyBhbmQgd2hhdCBpdCBtYXkgYXNrIG9mIHRoZSBydW50aW1lLiAqL1xuZXhwb3J0IGludGVyZmFjZSBMb2dnZXJPcHRpb25zIHtcbiAgd3JpdGUocmVjb3JkOiBMb2dSZWNvcmQpOiB2b2lkO1xuICBsZXZlbDogTGV2ZWw7XG4gIGluc3BlY3Q6IEluc3BlY3Q7XG4gIC8qKiBgZmlsZTpsaW5lOmNvbGAgb2YgdGhlIGNhbGxlciBvZiB0aGUgbG9nZ2luZyBmdW5jdGlvbjsgYXNrZWQgZm9yIHdhcm4gYW5kIGFib3ZlIG9ubHkuICovXG4gIGNhbGxTaXRlPygpOiBzdHJpbmcgfCB1bmRlZmluZWQ7XG59XG5cbmZ1bmN0aW9uIGxvb2t1cChhdHRyczogUmVjb3JkPHN0cmluZywgdW5rbm93bj4sIG5hbWU6IHN0cmluZyk6IHsgZm91bmQ6IGJvb2xlYW47IHZhbHVlPzogdW5rbm93biB9IHtcbiAgaWYgKE9iamVjdC5oYXNPd24oYXR0cnMsIG5hbWUpKSByZXR1cm4geyBmb3VuZDogdHJ1ZSwgdmFsdWU6IGF0dHJzW25hbWVdIH07XG4gIGxldCBhdDogdW5rbm93biA9IGF0dHJzO1xuICBmb3IgKGNvbnN0IHBhcnQgb2YgbmFtZS5zcGxpdChcIi5cIikpIHtcbiAgICBpZiAoYXQgPT09IG51bGwgfHwgdHlwZW9mIGF0ICE9PSBcIm9iamVjdFwiIHx8ICFPYmplY3QuaGFzT3duKGF0LCBwYXJ0KSkgcmV0dXJuIHsgZm91bmQ6IGZhbHNlIH07XG4gICAgYXQgPSAoYXQgYXMgUmVjb3JkPHN0cmluZywgdW5rbm93bj4pW3BhcnRdO1xuICB9XG4gIHJldHVybiB7IGZvdW5kOiB0cnVlLCB2YWx1ZTogYXQgfTtcbn1cblxuZnVuY3Rpb24gc2hvdyh2YWx1ZTogdW5rbm93bik6IHN0cmluZyB7XG4gIGlmICh0eXBlb2YgdmFsdWUgPT09IFwic3RyaW5nXCIpIHJldHVybiB2YWx1ZTtcbiAgaWYgKHZhbHVlID09PSBudWxsIHx8IHR5cGVvZiB2YWx1ZSAhPT0gXCJvYmplY3RcIikgcmV0dXJuIFN0cmluZyh2YWx1ZSk7XG4gIGlmICh2YWx1ZSBpbnN0YW5jZW9mIEVycm9yKSByZXR1cm4gYCR7dmFsdWUubmFtZX06ICR7dmFsdWUubWVzc2FnZX1gO1xuICB0cnkge1xuICAgIHJldHVybiBKU09OLnN0cmluZ2lmeShqc29uU2FmZSh2YWx1ZSkpO1xuICB9IGNhdGNoIHtcbiAgICByZXR1cm4gU3RyaW5nKHZhbHVlKTtcbiAgfVxufVxuXG4vKiogVGhlIGF0dHJpYnV0ZSBuYW1lcyBhIHRlbXBsYXRlIGNvbnN1bWVzIChpdHMgYHtwbGFjZWhvbGRlcnN9YCwgdG9wLWxldmVsIHBhcnQpLiAqL1xuZXhwb3J0IGZ1bmN0aW9uIHBsYWNlaG9sZGVycyh0ZW1wbGF0ZTogc3RyaW5nKTogc3RyaW5nW10ge1xuICBjb25zdCBvdXQ6IHN0cmluZ1tdID0gW107XG4gIGZvciAoY29uc3QgbSBvZiB0ZW1wbGF0ZS5tYXRjaEFsbChQTEFDRUhPTERFUikpIGlmIChtWzFdKSBvdXQucHVzaChtWzFdLnNwbGl0KFwiLlwiKVswXSk7XG4gIHJldHVybiBvdXQ7XG59XG5cbi8qKlxuICogRmlsbHMgYHtuYW1lfWAgKG9yIGB7YS5ifWApIGZyb20gYGF0dHJzYDsgYHt7eH19YCB3cml0ZXMgYSBsaXRlcmFsIGB7eH1gLiBBIHBsYWNlaG9sZGVyIHdpdGggbm9cbiAqIGF0dHJpYnV0ZSBzdGF5cyB2aXNpYmxlLCBzaW5jZSBhIGhvbGUgaW4gYSBzZW50ZW5jZSBpcyBhIGJ1ZyB3b3J0aCBzZWVpbmcuXG4gKi9cbmV4cG9ydCBmdW5jdGlvbiBpbnRlcnBvbGF0ZShcbiAgdGVtcGxhdGU6IHN0cmluZyxcbiAgYXR0cnM6IFJlY29yZDxzdHJpbmcsIHVua25vd24+LFxuKTogeyBtc2c6IHN0cmluZzsgdGVtcGxhdGVkOiBib29sZWFuIH0ge1xuICBsZXQgdGVtcGxhdGVkID0gZmFsc2U7XG4gIGNvbnN0IG1zZyA9IHRlbXBsYXRlLnJlcGxhY2UoUExBQ0VIT0xERVIsICh3aG9sZSwgbmFtZTogc3RyaW5nIHwgdW5kZWZpbmVkKSA9PiB7XG4gICAgdGVtcGxhdGVkID0gdHJ1ZTtcbiAgICBpZiAod2hvbGUgPT09IFwie3tcIikgcmV0dXJuIFwie1wiO1xuICAgIGlmICh3aG9sZSA9PT0gXCJ9fVwiKSByZXR1cm4gXCJ9XCI7XG4gICAgY29uc3QgaGl0ID0gbG9va3VwKGF0dHJzLCBuYW1lISk7XG4gICAgcmV0dXJuIGhpdC5mb3VuZCA/IHNob3coaGl0LnZhbHVlKSA6IHdob2xlO1xuICB9KTtcbiAgcmV0dXJuIHsgbXNnLCB0ZW1wbGF0ZWQgfTtcbn1cblxuZnVuY3Rpb24gaXNQbGFpbk9iamVjdCh2YWx1ZTogdW5rbm93bik6IHZhbHVlIGlzIFJlY29yZDxzdHJpbmcsIHVua25vd24+IHtcbiAgaWYgKHZhbHVlID09PSBudWxsIHx8IHR5cGVvZiB2YWx1ZSAhPT0gXCJvYmplY3RcIikgcmV0dXJuIGZhbHNlO1xuICBjb25zdCBwcm90byA9IE9iamVjdC5nZXRQcm90b3R5cGVPZih2YWx1ZSk7XG4gIHJldHVybiBwcm90byA9PT0gT2JqZWN0LnByb3RvdHlwZSB8fCBwcm90byA9PT0gbnVsbDtcbn1cblxuLyoqIE1ha2VzIHRoZSBgbG9nYCBnbG9iYWwuICovXG5leHBvcnQgZnVuY3Rpb24gY3JlYXRlTG9nZ2VyKG9wdGlvbnM6IExvZ2dlck9wdGlvbnMsIGJvdW5kOiBSZWNvcmQ8c3RyaW5nLCB1bmtub3duPiA9IHt9KTogTG9nZ2VyIHtcbiAgY29uc3QgbWluID0gUkFOS1tvcHRpb25zLmxldmVsXSA/PyAxO1xuICBjb25zdCByZWNvcmQgPSAobGV2ZWw6IExldmVsLCBtc2c6IHVua25vd24sIHJlc3Q6IHVua25vd25bXSkgPT4ge1xuICAgIGlmIChSQU5LW2xldmVsXSA8IG1pbikgcmV0dXJuO1xuICAgIGNvbnN0IGF0dHJzOiBSZWNvcmQ8c3RyaW5nLCB1bmtub3duPiA9IHsgLi4uYm91bmQgfTtcbiAgICBsZXQgYXJncyA9IHJlc3Q7XG4gICAgaWYgKHJlc3QubGVuZ3RoID4gMCAmJiBpc1BsYWluT2JqZWN0KHJlc3RbMF0pKSB7XG4gICAgICBPYmplY3QuYXNzaWduKGF0dHJzLCByZXN0WzBdKTtcbiAgICAgIGFyZ3MgPSByZXN0LnNsaWNlKDEpO1xuICAgIH1cbiAgICBsZXQgdGV4dDogc3RyaW5nO1xuICAgIGlmICh0eXBlb2YgbXNnID09PSBcInN0cmluZ1wiKSB0ZXh0ID0gbXNnO1xuICAgIGVsc2UgaWYgKG1zZyBpbnN0YW5jZW9mIEVycm9yKSB7XG4gICAgICB0ZXh0ID0gYCR7bXNnLm5hbWV9OiAke21zZy5tZXNzYWdlfWA7XG4gICAgICBhcmdzID0gW21zZywgLi4uYXJnc107XG4gICAgfSBlbHNlIHRleHQgPSBvcHRpb25zLmluc3BlY3QobXNnKTtcbiAgICBjb25zdCB7IG1zZzogZmlsbGVkLCB0ZW1wbGF0ZWQgfSA9IGludGVycG9sYXRlKHRleHQsIGF0dHJzKTtcbiAgICBjb25zdCBvdXQ6IExvZ1JlY29yZCA9IHsgdHM6IG5ldyBEYXRlKCkudG9JU09TdHJpbmcoKSwgbGV2ZWwsIG1zZzogZmlsbGVkIH07XG4gICAgaWYgKHRlbXBsYXRlZCkgb3V0LnRlbXBsYXRlID0gdGV4dDtcbiAgICBmb3IgKGNvbnN0IFtrZXksIHZhbHVlXSBvZiBPYmplY3QuZW50cmllcyhhdHRycykpIHtcbiAgICAgIGlmICh2YWx1ZSA9PT0gdW5kZWZpbmVkKSBjb250aW51ZTtcbiAgICAgIG91dFtSRVNFUlZFRC5oYXMoa2V5KSA/IGBfJHtrZXl9YCA6IGtleV0gPSB2YWx1ZSBpbnN0YW5jZW9mIEVycm9yXG4gICAgICAgID8gZXJyb3JEYXRhKHZhbHVlKVxuICAgICAgICA6IGpzb25TYWZlKHZhbHVlKTtcbiAgICB9XG4gICAgaWYgKGFyZ3MubGVuZ3RoID4gMCkgb3V0LmFyZ3MgPSBhcmdzLm1hcCgoYSkgPT4ganNvblNhZmUoYSkpO1xuICAgIGlmIChSQU5LW2xldmVsXSA+PSAyICYmIG9wdGlvbnMuY2FsbFNpdGUpIHtcbiAgICAgIGNvbnN0IHNpdGUgPSBvcHRpb25zLmNhbGxTaXRlKCk7XG4gICAgICBpZiAoc2l0ZSkgb3V0LnNvdXJjZSA9IHNpdGU7XG4gICAgfVxuICAgIG9wdGlvbnMud3JpdGUob3V0KTtcbiAgfTtcbiAgY29uc3QgbG9nID0gKChtc2c6IHVua25vd24sIC4uLnJlc3Q6IHVua25vd25bXSkgPT4gcmVjb3JkKFwiaW5mb1wiLCBtc2csIHJlc3QpKSBhcyBMb2dnZXI7XG4gIGZvciAoY29uc3QgbGV2ZWwgb2YgTEVWRUxTKSB7XG4gICAgT2JqZWN0LmRlZmluZVByb3BlcnR5KGxvZywgbGV2ZWwsIHtcbiAgICAgIHZhbHVlOiAobXNnOiB1bmtub3duLCAuLi5yZXN0OiB1bmtub3duW10pID0+IHJlY29yZChsZXZlbCwgbXNnLCByZXN0KSxcbiAgICAgIGVudW1lcmFibGU6IHRydWUsXG4gICAgfSk7XG4gIH1cbiAgT2JqZWN0LmRlZmluZVByb3BlcnR5KGxvZywgXCJ3aXRoXCIsIHtcbiAgICB2YWx1ZTogKGF0dHJzOiBSZWNvcmQ8c3RyaW5nLCB1bmtub3duPikgPT4gY3JlYXRlTG9nZ2VyKG9wdGlvbnMsIHsgLi4uYm91bmQsIC4uLmF0dHJzIH0pLFxuICB9KTtcbiAgT2JqZWN0LmRlZmluZVByb3BlcnR5KGxvZywgXCJsZXZlbFwiLCB7IHZhbHVlOiBvcHRpb25zLmxldmVsLCBlbnVtZXJhYmxlOiB0cnVlIH0pO1xuICByZXR1cm4gbG9nO1xufVxuXG5mdW5jdGlvbiB0d28objogbnVtYmVyLCB3aWR0aCA9IDIpOiBzdHJpbmcge1xuICByZXR1cm4gU3RyaW5nKG4pLnBhZFN0YXJ0KHdpZHRoLCBcIjBcIik7XG59XG5cbmZ1bmN0aW9uIGF0dHJUZXh0KHZhbHVlOiB1bmtub3duKTogc3RyaW5nIHtcbiAgaWYgKHR5cGVvZiB2YWx1ZSA9PT0gXCJzdHJpbmdcIikge1xuICAgIHJldHVybiB2YWx1ZSA9PT0gXCJcIiB8fCAvW1xcc1wiPV0vLnRlc3QodmFsdWUpID8gSlNPTi5zdHJpbmdpZnkodmFsdWUpIDogdmFsdWU7XG4gIH1cbiAgaWYgKFxuICAgIGlzUGxhaW5PYmplY3QodmFsdWUpICYmIHR5cGVvZiB2YWx1ZS5uYW1lID09PSBcInN0cmluZ1wiICYmIHR5cGVvZiB2YWx1ZS5tZXNzYWdlID09PSBcInN0cmluZ1wiICYmXG4gICAgXCJzdGFja1wiIGluIHZhbHVlXG4gICkge1xuICAgIHJldHVybiBKU09OLnN0cmluZ2lmeShgJHt2YWx1ZS5uYW1lfTogJHt2YWx1ZS5tZXNzYWdlfWApO1xuICB9XG4gIHJldHVybiBKU09OLnN0cmluZ2lmeSh2YWx1ZSk7XG59XG5cbi8qKlxuICogT25lIHJlY29yZCBhcyBhIHRlcm1pbmFsIGxpbmU6IGAxOTo0NDo0NS45MTEgSU5GTyAgZmV0Y2hlZCAzIHBhZ2VzIGluIDQxMm1zIHVybD1odHRwczovL+KApmAuXG4gKiBBdHRyaWJ1dGVzIHRoZSB0ZW1wbGF0ZSBjb25zdW1lZCBhcmUgbm90IHJlcGVhdGVkLlxuICovXG5leHBvcnQgZnVuY3Rpb24gcmVuZGVyUmVjb3JkKHJlY29yZDogTG9nUmVjb3JkKTogc3RyaW5nIHtcbiAgY29uc3QgZCA9IG5ldyBEYXRlKHJlY29yZC50cyk7XG4gIGNvbnN0IHRpbWUgPSBOdW1iZXIuaXNOYU4oZC5nZXRUaW1lKCkpXG4gICAgPyBcIi0tOi0tOi0tLi0tLVwiXG4gICAgOiBgJHt0d28oZC5nZXRIb3VycygpKX06JHt0d28oZC5nZXRNaW51dGVzKCkpfToke3R3byhkLmdldFNlY29uZHMoKSl9LiR7XG4gICAgICB0d28oZC5nZXRNaWxsaXNlY29uZHMoKSwgMylcbiAgICB9YDtcbiAgY29uc3QgbGV2ZWwgPSBTdHJpbmcocmVjb3JkLmxldmVsID8/IFwiaW5mb1wiKS50b1VwcGVyQ2FzZSgpLnBhZEVuZCg1KTtcbiAgY29uc3QgcGFydHMgPSBbdGltZSwgbGV2ZWwsIFN0cmluZyhyZWNvcmQubXNnID8/IFwiXCIpXTtcbiAgaWYgKEFycmF5LmlzQXJyYXkocmVjb3JkLmFyZ3MpICYmICFyZWNvcmQuY29uc29sZSkge1xuICAgIGZvciAoY29uc3QgYSBvZiByZWNvcmQuYXJncykgcGFydHMucHVzaCh0eXBlb2YgYSA9PT0gXCJzdHJpbmdcIiA/IGEgOiBhdHRyVGV4dChhKSk7XG4gIH1cbiAgY29uc3QgdXNlZCA9IG5ldyBTZXQocmVjb3JkLnRlbXBsYXRlID8gcGxhY2Vob2xkZXJzKHJlY29yZC50ZW1wbGF0ZSkgOiBbXSk7XG4gIGZvciAoY29uc3QgW2tleSwgdmFsdWVdIG9mIE9iamVjdC5lbnRyaWVzKHJlY29yZCkpIHtcbiAgICBpZiAoUkVTRVJWRUQuaGFzKGtleSkgfHwgdXNlZC5oYXMoa2V5KSkgY29udGludWU7XG4gICAgcGFydHMucHVzaChgJHtrZXl9PSR7YXR0clRleHQodmFsdWUpfWApO1xuICB9XG4gIGlmICh0eXBlb2YgcmVjb3JkLnNvdXJjZSA9PT0gXCJzdHJpbmdcIikgcGFydHMucHVzaChgc291cmNlPSR7cmVjb3JkLnNvdXJjZX1gKTtcbiAgcmV0dXJuIHBhcnRzLmpvaW4oXCIgXCIpO1xufVxuIiwgIi8vIENsYXNzaWZ5aW5nIHdoYXQgd2VudCB3cm9uZyBpbiBhIHNjcmlwdCwgYW5kIHdoZXJlLCB0aGUgc2FtZSB3YXkgdW5kZXIgRGVubywgQnVuIGFuZCBOb2RlLlxuLy8gRXJhc2FibGUgVHlwZVNjcmlwdCwgbm8gcnVudGltZSBBUElzLlxuXG5pbXBvcnQgdHlwZSB7IExvY2F0aW9uLCBTY3JpcHRGYWlsdXJlIH0gZnJvbSBcIi4vcHJvdG9jb2wudHNcIjtcblxuLyoqIFdoYXQgdGhlIGNsYXNzaWZpZXIgbmVlZHMgdG8ga25vdyB0byB0ZWxsIHRoZSBzY3JpcHQncyBmcmFtZXMgZnJvbSB0aGUgbGF1bmNoZXIncy4gKi9cbmV4cG9ydCBpbnRlcmZhY2UgRmFpbHVyZUNvbnRleHQge1xuICBzY3JpcHQ6IHN0cmluZztcbiAgbGF1bmNoZXJEaXI6IHN0cmluZztcbiAgY2xpZW50Pzogc3RyaW5nO1xufVxuXG5pbnRlcmZhY2UgRnJhbWUge1xuICBsaW5lOiBzdHJpbmc7XG4gIGZpbGU6IHN0cmluZztcbiAgbGluZU5vOiBudW1iZXI7XG4gIGNvbDogbnVtYmVyO1xufVxuXG5jb25zdCBGUkFNRSA9IC9eXFxzKmF0ICg/Oi4qPyBcXCgpPyguKz8pOihcXGQrKTooXFxkKylcXCk/XFxzKiQvO1xuXG4vKiogQSBgZmlsZTpgIFVSTCBvciBhIHBhdGgsIGFzIGEgcGF0aC4gKi9cbmV4cG9ydCBmdW5jdGlvbiB0b1BhdGgoZmlsZTogc3RyaW5nKTogc3RyaW5nIHtcbiAgaWYgKCFmaWxlLnN0YXJ0c1dpdGgoXCJmaWxlOi8vXCIpKSByZXR1cm4gZmlsZTtcbiAgdHJ5IHtcbiAgICByZXR1cm4gZGVjb2RlVVJJQ29tcG9uZW50KG5ldyBVUkwoZmlsZSkucGF0aG5hbWUpO1xuICB9IGNhdGNoIHtcbiAgICByZXR1cm4gZmlsZTtcbiAgfVxufVxuXG5mdW5jdGlvbiBpc0ludGVybmFsKGZpbGU6IHN0cmluZywgY3R4OiBGYWlsdXJlQ29udGV4dCk6IGJvb2xlYW4ge1xuICByZXR1cm4gL14obm9kZXxleHR8YnVufGludGVybmFsfG5hdGl2ZSlbOi9dfF5cXFt8Xjxhbm9ueW1vdXM+JHxebmF0aXZlJC8udGVzdChmaWxlKSB8fFxuICAgIGZpbGUuc3RhcnRzV2l0aChjdHgubGF1bmNoZXJEaXIuZW5kc1dpdGgoXCIvXCIpID8gY3R4LmxhdW5jaGVyRGlyIDogY3R4LmxhdW5jaGVyRGlyICsgXCIvXCIpO1xufVxuXG5mdW5jdGlvbiBmcmFtZXMoc3RhY2s6IHN0cmluZyk6IEZyYW1lW10ge1xuICBjb25zdCBvdXQ6IEZyYW1lW10gPSBbXTtcbiAgZm9yIChjb25zdCBsaW5lIG9mIHN0YWNrLnNwbGl0KFwiXFxuXCIpKSB7XG4gICAgY29uc3QgbSA9IEZSQU1FLmV4ZWMobGluZSk7XG4gICAgaWYgKG0pIG91dC5wdXNoKHsgbGluZSwgZmlsZTogdG9QYXRoKG1bMV0pLCBsaW5lTm86IE51bWJlcihtWzJdKSwgY29sOiBOdW1iZXIobVszXSkgfSk7XG4gIH1cbiAgcmV0dXJuIG91dDtcbn1cblxuLyoqIFRoZSBpbm5lcm1vc3QgZnJhbWUgdGhlIHVzZXIgd3JvdGU6IG5vdCB0aGUgbGF1bmNoZXIncywgdGhlIHJ1bnRpbWUncyBvciB0aGUgZ2VuZXJhdGVkIGNsaWVudCdzLiAqL1xuZXhwb3J0IGZ1bmN0aW9uIHVzZXJMb2NhdGlvbihzdGFjazogc3RyaW5nLCBjdHg6IEZhaWx1cmVDb250ZXh0KTogTG9jYXRpb24gfCB1bmRlZmluZWQge1xuICBjb25zdCBhbGwgPSBmcmFtZXMoc3RhY2spLmZpbHRlcigoZikgPT4gIWlzSW50ZXJuYWwoZi5maWxlLCBjdHgpKTtcbiAgY29uc3QgcGljayA9IGFsbC5maW5kKChmKSA9PiBmLmZpbGUgIT09IGN0eC5jbGllbnQpID8/IGFsbFswXTtcbiAgcmV0dXJuIHBpY2sgPyB7IGZpbGU6IHBpY2suZmlsZSwgbGluZTogcGljay5saW5lTm8sIGNvbDogcGljay5jb2wgfSA6IHVuZGVmaW5lZDtcbn1cblxuLyoqIFRoZSBzdGFjayB3aXRoIHRoZSBsYXVuY2hlcidzIGFuZCB0aGUgcnVudGltZSdzIG93biBmcmFtZXMgdGFrZW4gb3V0LiAqL1xuZXhwb3J0IGZ1bmN0aW9uIGNsZWFuU3RhY2soc3RhY2s6IHN0cmluZywgY3R4OiBGYWlsdXJlQ29udGV4dCk6IHN0cmluZyB7XG4gIHJldHVybiBzdGFjay5zcGxpdChcIlxcblwiKS5maWx0ZXIoKGxpbmUpID0+IHtcbiAgICBjb25zdCBtID0gRlJBTUUuZXhlYyhsaW5lKTtcbiAgICByZXR1cm4gIW0gfHwgIWlzSW50ZXJuYWwodG9QYXRoKG1bMV0pLCBjdHgpO1xuICB9KS5qb2luKFwiXFxuXCIpO1xufVxuXG5mdW5jdGlvbiBzcGxpdE5hbWUobmFtZTogc3RyaW5nLCBtZXNzYWdlOiBzdHJpbmcpOiB7IG5hbWU6IHN0cmluZzsgbWVzc2FnZTogc3RyaW5nIH0ge1xuICBjb25zdCBtID0gL14oW0EtWl1cXHcqKD86RXJyb3J8RXhjZXB0aW9uKSk6IChbXFxzXFxTXSopJC8uZXhlYyhtZXNzYWdlKTtcbiAgcmV0dXJuIG0gPyB7IG5hbWU6IG1bMV0sIG1lc3NhZ2U6IG1bMl0gfSA6IHsgbmFtZSwgbWVzc2FnZSB9O1xufVxuXG4vKiogV2hlcmUgYSBwYXJzZSBlcnJvciBwb2ludHMsIGluIHdoaWNoZXZlciBmb3JtIHRoZSBydW50aW1lIHJlcG9ydGVkIGl0LiAqL1xuZnVuY3Rpb24gc3ludGF4TG9jYXRpb24oZXJyb3I6IFJlY29yZDxzdHJpbmcsIHVua25vd24+LCBtZXNzYWdlOiBzdHJpbmcpOiBMb2NhdGlvbiB8IHVuZGVmaW5lZCB7XG4gIGNvbnN0IHBvcyA9IGVycm9yLnBvc2l0aW9uIGFzIHsgZmlsZT86IHN0cmluZzsgbGluZT86IG51bWJlcjsgY29sdW1uPzogbnVtYmVyIH0gfCB1bmRlZmluZWQ7XG4gIGlmIChwb3MgJiYgdHlwZW9mIHBvcy5maWxlID09PSBcInN0cmluZ1wiICYmIHR5cGVvZiBwb3MubGluZSA9PT0gXCJudW1iZXJcIikge1xuICAgIHJldHVybiB7IGZpbGU6IHRvUGF0aChwb3MuZmlsZSksIGxpbmU6IHBvcy5saW5lLCBjb2w6IHBvcy5jb2x1bW4gfTtcbiAgfVxuICAvLyBEZW5vOiBcIuKAplxcbiAgICBhdCBmaWxlOi8vL3gvYmFkLnRzOjI6OVwiIGNsb3NlcyB0aGUgbWVzc2FnZS5cbiAgY29uc3QgZGVubyA9IC9cXG5cXHMqYXQgKFxcUys/KTooXFxkKyk6KFxcZCspXFxzKiQvLmV4ZWMobWVzc2FnZSk7XG4gIGlmIChkZW5vKSByZXR1cm4geyBmaWxlOiB0b1BhdGgoZGVub1sxXSksIGxpbmU6IE51bWJlcihkZW5vWzJdKSwgY29sOiBOdW1iZXIoZGVub1szXSkgfTtcbiAgLy8gTm9kZTogdGhlIHN0YWNrIG9wZW5zIHdpdGggXCIveC9iYWQudHM6Mlxcbjxzb3VyY2UgbGluZT5cXG4gICBeXCIuXG4gIGNvbnN0IHN0YWNrID0gdHlwZW9mIGVycm9yLnN0YWNrID09PSBcInN0cmluZ1wiID8gZXJyb3Iuc3RhY2sgOiBcIlwiO1xuICBjb25zdCBub2RlID0gL14oLis/KTooXFxkKylcXG4oKD86LipcXG4pKj8pKFxccyopXFxeLy5leGVjKHN0YWNrKTtcbiAgaWYgKG5vZGUpIHJldHVybiB7IGZpbGU6IHRvUGF0aChub2RlWzFdKSwgbGluZTogTnVtYmVyKG5vZGVbMl0pLCBjb2w6IG5vZGVbNF0ubGVuZ3RoICsgMSB9O1xuICByZXR1cm4gdW5kZWZpbmVkO1xufVxuXG4vKipcbiAqIENsYXNzaWZpZXMgYSB0aHJvd24gdmFsdWUuIGBpbXBvcnRpbmdgIHNheXMgaXQgY2FtZSBvdXQgb2YgaW1wb3J0aW5nIHRoZSBzY3JpcHQsIHdoZXJlIGEgcGFyc2VcbiAqIG9yIHJlc29sdXRpb24gZXJyb3IgaXMgdGhlIHNjcmlwdCdzIHN5bnRheCBvciBhIG1pc3NpbmcgbW9kdWxlIHJhdGhlciB0aGFuIGEgdGhyb3cuXG4gKi9cbmV4cG9ydCBmdW5jdGlvbiBkZXNjcmliZUZhaWx1cmUoXG4gIGVycm9yOiB1bmtub3duLFxuICBjdHg6IEZhaWx1cmVDb250ZXh0LFxuICBpbXBvcnRpbmcgPSBmYWxzZSxcbik6IFNjcmlwdEZhaWx1cmUge1xuICBpZiAoIShlcnJvciBpbnN0YW5jZW9mIE9iamVjdCkpIHtcbiAgICByZXR1cm4geyBraW5kOiBcInVuY2F1Z2h0XCIsIG5hbWU6IFwiVW5jYXVnaHRcIiwgbWVzc2FnZTogZGVzY3JpYmVUaHJvd24oZXJyb3IpIH07XG4gIH1cbiAgY29uc3QgZSA9IGVycm9yIGFzIFJlY29yZDxzdHJpbmcsIHVua25vd24+O1xuICBjb25zdCByYXdOYW1lID0gdHlwZW9mIGUubmFtZSA9PT0gXCJzdHJpbmdcIiA/IGUubmFtZSA6IFwiRXJyb3JcIjtcbiAgY29uc3QgcmF3TWVzc2FnZSA9IHR5cGVvZiBlLm1lc3NhZ2UgPT09IFwic3RyaW5nXCIgPyBlLm1lc3NhZ2UgOiBTdHJpbmcoZXJyb3IpO1xuICBsZXQgeyBuYW1lLCBtZXNzYWdlIH0gPSBzcGxpdE5hbWUocmF3TmFtZSwgcmF3TWVzc2FnZSk7XG4gIGNvbnN0IHN0YWNrID0gdHlwZW9mIGUuc3RhY2sgPT09IFwic3RyaW5nXCIgPyBlLnN0YWNrIDogXCJcIjtcbiAgaWYgKGltcG9ydGluZykge1xuICAgIGNvbnN0IHN5bnRheCA9IG5hbWUgPT09IFwiU3ludGF4RXJyb3JcIiB8fCByYXdOYW1lID09PSBcIkJ1aWxkTWVzc2FnZVwiO1xuICAgIGNvbnN0IG1pc3NpbmcgPSByYXdOYW1lID09PSBcIlJlc29sdmVNZXNzYWdlXCIgfHwgZS5jb2RlID09PSBcIkVSUl9NT0RVTEVfTk9UX0ZPVU5EXCIgfHxcbiAgICAgIC9eTW9kdWxlIG5vdCBmb3VuZFxcYi8udGVzdChtZXNzYWdlKTtcbiAgICBpZiAoc3ludGF4IHx8IG1pc3NpbmcpIHtcbiAgICAgIGNvbnN0IGxvY2F0aW9uID0gc3ludGF4TG9jYXRpb24oZSwgcmF3TWVzc2FnZSkgPz8gdXNlckxvY2F0aW9uKHN0YWNrLCBjdHgpO1xuICAgICAgcmV0dXJuIHtcbiAgICAgICAga2luZDogc3ludGF4ID8gXCJzeW50YXhcIiA6IFwibG9hZFwiLFxuICAgICAgICBuYW1lOiBzeW50YXggPyBcIlN5bnRheEVycm9yXCIgOiBuYW1lLFxuICAgICAgICBtZXNzYWdlOiBtZXNzYWdlLnNwbGl0KFwiXFxuXCIpWzBdLnRyaW0oKSxcbiAgICAgICAgLi4uKGxvY2F0aW9uID8geyBsb2NhdGlvbiB9IDoge30pLFxuICAgICAgfTtcbiAgICB9XG4gIH1cbiAgaWYgKHJhd05hbWUgPT09IFwiQnVpbGRNZXNzYWdlXCIpIG5hbWUgPSBcIlN5bnRheEVycm9yXCI7XG4gIGNvbnN0IGxvY2F0aW9uID0gdXNlckxvY2F0aW9uKHN0YWNrLCBjdHgpO1xuICByZXR1cm4ge1xuICAgIGtpbmQ6IFwidW5jYXVnaHRcIixcbiAgICBuYW1lLFxuICAgIG1lc3NhZ2UsXG4gICAgLi4uKGxvY2F0aW9uID8geyBsb2NhdGlvbiB9IDoge30pLFxuICAgIC4uLihzdGFjayA/IHsgc3RhY2s6IGNsZWFuU3RhY2soc3RhY2ssIGN0eCkgfSA6IHt9KSxcbiAgfTtcbn1cblxuZnVuY3Rpb24gZGVzY3JpYmVUaHJvd24odmFsdWU6IHVua25vd24pOiBzdHJpbmcge1xuICB0cnkge1xuICAgIHJldHVybiBgdGhyZXcgJHt0eXBlb2YgdmFsdWUgPT09IFwic3RyaW5nXCIgPyBKU09OLnN0cmluZ2lmeSh2YWx1ZSkgOiBTdHJpbmcodmFsdWUpfWA7XG4gIH0gY2F0Y2gge1xuICAgIHJldHVybiBcInRocmV3IGEgdmFsdWUgdGhhdCBjYW5ub3QgYmUgc2hvd25cIjtcbiAgfVxufVxuIiwgIi8vIFdoYXQgdGhlIGxhdW5jaGVyIGFuZCB0aGUgQ0xJIGFncmVlIG9uLiBFcmFzYWJsZSBUeXBlU2NyaXB0IG9ubHk6IE5vZGUncyB0eXBlIHN0cmlwcGluZyBhbmQgQnVuXG4vLyBsb2FkIHRoaXMgZmlsZSBhcyBpdCBpcywgc28gbm8gZW51bXMsIHBhcmFtZXRlciBwcm9wZXJ0aWVzIG9yIHZhbHVlIG5hbWVzcGFjZXMuXG5cbi8qKlxuICogU3RhcnRzIGV2ZXJ5IHN0cnVjdHVyZWQgbGluZSB0aGUgbGF1bmNoZXIgd3JpdGVzIG9uIHN0ZGVycjogYSBsb2cgcmVjb3JkLCBvciBhIGNvbnRyb2wgcmVjb3JkXG4gKiAoYHtcIm1jcHhcIjog4oCmfWApIGNhcnJ5aW5nIGFuIGVtaXR0ZWQgdmFsdWUsIHRoZSByZXN1bHQgb3IgYSBmYWlsdXJlLiBBbnl0aGluZyBlbHNlIG9uIHN0ZGVyciBpc1xuICogdGhlIHNjcmlwdCdzIG93biBhbmQgcGFzc2VzIHRocm91Z2ggdW50b3VjaGVkLlxuICovXG5leHBvcnQgY29uc3QgUkVDT1JEX01BUksgPSBcIlxceDFlXCI7XG5cbi8qKiBUaGUgdmFyaWFibGUgdGhhdCBoYW5kcyBhIHN1YnByb2Nlc3MgbGF1bmNoZXIgaXRzIHtAbGlua2NvZGUgTGF1bmNoQ29uZmlnfTsgcmVtb3ZlZCBhdCBvbmNlLiAqL1xuZXhwb3J0IGNvbnN0IExBVU5DSF9WQVJJQUJMRSA9IFwiX01DUFhfTEFVTkNIXCI7XG5cbi8qKiBFeGl0IHN0YXR1cyBvZiBhIHNjcmlwdCB0aGF0IHRocmV3LCBmYWlsZWQgdG8gbG9hZCwgb3IgcmV0dXJuZWQgYSB2YWx1ZSBKU09OIGNhbm5vdCBob2xkLiAqL1xuZXhwb3J0IGNvbnN0IEVYSVRfRkFJTEVEID0gMTtcbi8qKiBFeGl0IHN0YXR1cyB3aGVuIGAtLWV4cG9ydGAgbmFtZXMgbm90aGluZyBjYWxsYWJsZS4gKi9cbmV4cG9ydCBjb25zdCBFWElUX1VTQUdFID0gMjtcbi8qKiBFeGl0IHN0YXR1cyB3aGVuIHRoZSBydW4gb3V0bGl2ZWQgYHNjcmlwdC50aW1lb3V0YCBhbmQgd2FzIHN0b3BwZWQgKGFzIHRpbWVvdXQoMSkgZG9lcykuICovXG5leHBvcnQgY29uc3QgRVhJVF9USU1FT1VUID0gMTI0O1xuXG4vKiogTG9nIGxldmVscyBpbiBpbmNyZWFzaW5nIHNldmVyaXR5LiAqL1xuZXhwb3J0IHR5cGUgTGV2ZWwgPSBcImRlYnVnXCIgfCBcImluZm9cIiB8IFwid2FyblwiIHwgXCJlcnJvclwiO1xuXG4vKiogRXZlcnl0aGluZyBhIGxhdW5jaGVyIG5lZWRzIHRvIHJ1biBvbmUgc2NyaXB0LiAqL1xuZXhwb3J0IGludGVyZmFjZSBMYXVuY2hDb25maWcge1xuICAvKiogQWJzb2x1dGUgcGF0aCBvZiB0aGUgbW9kdWxlIHRvIGltcG9ydC4gKi9cbiAgc2NyaXB0OiBzdHJpbmc7XG4gIC8qKiBUaGUgc2NyaXB0J3MgYXJndW1lbnRzOiBgRGVuby5hcmdzYCwgYHByb2Nlc3MuYXJndi5zbGljZSgyKWAsIHRoZSBnbG9iYWwgYGFyZ3NgLiAqL1xuICBhcmdzOiBzdHJpbmdbXTtcbiAgLyoqIEEgbmFtZWQgZXhwb3J0IHRvIGNhbGwgd2l0aCB0aGUgYXJndW1lbnRzIHNwcmVhZCwgaW5zdGVhZCBvZiB0aGUgZGVmYXVsdCBleHBvcnQuICovXG4gIGV4cG9ydD86IHN0cmluZztcbiAgLyoqIEFic29sdXRlIHBhdGggb2YgdGhlIGdlbmVyYXRlZCBjbGllbnQgd2hvc2UgYF9fbWNweEdsb2JhbHNgIGJlY29tZSBnbG9iYWxzLiAqL1xuICBjbGllbnQ/OiBzdHJpbmc7XG4gIC8qKiBDb2xsZWN0IGVtaXR0ZWQgdmFsdWVzIGFuZCB0aGUgcmVzdWx0IGFzIHJlY29yZHMgKGBtY3B4IC0tanNvbiBydW5gKSBpbnN0ZWFkIG9mIHByaW50aW5nLiAqL1xuICBqc29uOiBib29sZWFuO1xuICAvKiogUmVjb3JkcyBiZWxvdyB0aGlzIGxldmVsIGFyZSBkcm9wcGVkIHdoZXJlIHRoZXkgYXJlIG1hZGUuICovXG4gIGxvZ0xldmVsOiBMZXZlbDtcbiAgLyoqIFZhcmlhYmxlcyB0byBzZXQgYmVmb3JlIGFueXRoaW5nIGlzIGltcG9ydGVkIChhIFdvcmtlciBzaGFyZXMgdGhlIHByb2Nlc3MgZW52aXJvbm1lbnQpLiAqL1xuICBlbnY/OiBSZWNvcmQ8c3RyaW5nLCBzdHJpbmc+O1xuICAvKiogRm9sZGVyIG9mIHRoZSBsYXVuY2hlcidzIG93biBmaWxlczogdGhlaXIgZnJhbWVzIGFyZSBsZWZ0IG91dCBvZiBsb2NhdGlvbnMgYW5kIHN0YWNrcy4gKi9cbiAgbGF1bmNoZXJEaXI6IHN0cmluZztcbn1cblxuLyoqIFdoZXJlIGEgZmFpbHVyZSBoYXBwZW5lZCwgd2hlbiBpdCBjb3VsZCBiZSBmb3VuZC4gKi9cbmV4cG9ydCBpbnRlcmZhY2UgTG9jYXRpb24ge1xuICBmaWxlOiBzdHJpbmc7XG4gIGxpbmU6IG51bWJlcjtcbiAgY29sPzogbnVtYmVyO1xufVxuXG4vKiogV2h5IGEgc2NyaXB0IGZhaWxlZCwgYXMgdGhlIGxhdW5jaGVyIGNsYXNzaWZpZWQgaXQuICovXG5leHBvcnQgaW50ZXJmYWNlIFNjcmlwdEZhaWx1cmUge1xuICBraW5kOiBcInVuY2F1Z2h0XCIgfCBcInN5bnRheFwiIHwgXCJsb2FkXCIgfCBcImV4cG9ydFwiIHwgXCJyZXN1bHRcIjtcbiAgbmFtZTogc3RyaW5nO1xuICBtZXNzYWdlOiBzdHJpbmc7XG4gIGxvY2F0aW9uPzogTG9jYXRpb247XG4gIC8qKiBUaGUgc3RhY2sgd2l0aG91dCBsYXVuY2hlciBvciBydW50aW1lLWludGVybmFsIGZyYW1lcy4gKi9cbiAgc3RhY2s/OiBzdHJpbmc7XG4gIC8qKiBGb3IgYGV4cG9ydGA6IHRoZSBtb2R1bGUncyBjYWxsYWJsZSBleHBvcnRzLiAqL1xuICBleHBvcnRzPzogc3RyaW5nW107XG4gIC8qKiBXaGF0IHdvdWxkIGZpeCBpdCwgd2hlbiB0aGUgbGF1bmNoZXIgY2FuIHRlbGwgKGFuIHVua25vd24gbmFtZXNwYWNlIG9yIHRvb2wpLiAqL1xuICBoaW50Pzogc3RyaW5nO1xufVxuXG4vKiogQSBzdHJ1Y3R1cmVkIGxvZyByZWNvcmQsIGFzIHdyaXR0ZW4gYmVoaW5kIHtAbGlua2NvZGUgUkVDT1JEX01BUkt9LiBBdHRyaWJ1dGVzIGFyZSBmbGF0LiAqL1xuZXhwb3J0IGludGVyZmFjZSBMb2dSZWNvcmQge1xuICB0czogc3RyaW5nO1xuICBsZXZlbDogTGV2ZWw7XG4gIG1zZzogc3RyaW5nO1xuICAvKiogVGhlIG1lc3NhZ2UgYmVmb3JlIGludGVycG9sYXRpb24sIHdoZW4gaXQgaGFkIHBsYWNlaG9sZGVycy4gKi9cbiAgdGVtcGxhdGU/OiBzdHJpbmc7XG4gIC8qKiBWYWx1ZXMgcGFzc2VkIGFmdGVyIHRoZSBtZXNzYWdlIHRoYXQgd2VyZSBub3QgYXR0cmlidXRlcy4gKi9cbiAgYXJncz86IHVua25vd25bXTtcbiAgLyoqIGBmaWxlOmxpbmU6Y29sYCBvZiB0aGUgY2FsbCwgZm9yIHdhcm4gYW5kIGFib3ZlLiAqL1xuICBzb3VyY2U/OiBzdHJpbmc7XG4gIFthdHRyaWJ1dGU6IHN0cmluZ106IHVua25vd247XG59XG5cbi8qKiBBIGNvbnRyb2wgcmVjb3JkOiBhIHZhbHVlIGZvciB0aGUgZW52ZWxvcGUsIG9yIHRoZSByZWFzb24gdGhlIHJ1biBmYWlsZWQuICovXG5leHBvcnQgdHlwZSBDb250cm9sUmVjb3JkID1cbiAgfCB7IG1jcHg6IFwiZW1pdFwiOyB2YWx1ZTogdW5rbm93biB9XG4gIHwgeyBtY3B4OiBcInJlc3VsdFwiOyB2YWx1ZTogdW5rbm93biB9XG4gIHwgeyBtY3B4OiBcImVycm9yXCI7IGZhaWx1cmU6IFNjcmlwdEZhaWx1cmUgfTtcblxuLyoqIE1lc3NhZ2VzIGEgV29ya2VyIGxhdW5jaGVyIHBvc3RzIHRvIHRoZSBDTEkuICovXG5leHBvcnQgdHlwZSBXb3JrZXJNZXNzYWdlID1cbiAgfCB7IHQ6IFwib3V0XCI7IGZkOiAxIHwgMjsgZGF0YTogVWludDhBcnJheSB9XG4gIHwgeyB0OiBcImV4aXRcIjsgY29kZTogbnVtYmVyIH07XG4iLCAiLy8gVGhlIGxhdW5jaGVyIHByb3BlcjogaW5zdGFsbHMgdGhlIGdsb2JhbHMsIGltcG9ydHMgdGhlIHNjcmlwdCwgY2FsbHMgaXRzIGVudHJ5IHBvaW50IGFuZFxuLy8gcmVwb3J0cyB0aGUgb3V0Y29tZSwgaWRlbnRpY2FsbHkgdW5kZXIgYSBEZW5vIFdvcmtlciwgRGVubywgQnVuIGFuZCBOb2RlLiBUaGUgaG9zdCAod29ya2VyLnRzIG9yXG4vLyBtYWluLnRzKSBzdXBwbGllcyB0aGUgZmV3IHRoaW5ncyB0aGF0IGRpZmZlci4gRXJhc2FibGUgVHlwZVNjcmlwdCBvbmx5LlxuXG5pbXBvcnQgeyBjcmVhdGVMb2dnZXIsIHR5cGUgTG9nZ2VyIH0gZnJvbSBcIi4vbG9nLnRzXCI7XG5pbXBvcnQgeyBkZXNjcmliZUZhaWx1cmUsIHR5cGUgRmFpbHVyZUNvbnRleHQsIHVzZXJMb2NhdGlvbiB9IGZyb20gXCIuL2ZhaWx1cmUudHNcIjtcbmltcG9ydCB7XG4gIHR5cGUgQ29udHJvbFJlY29yZCxcbiAgRVhJVF9GQUlMRUQsXG4gIEVYSVRfVVNBR0UsXG4gIHR5cGUgTGF1bmNoQ29uZmlnLFxuICB0eXBlIExldmVsLFxuICB0eXBlIExvZ1JlY29yZCxcbiAgUkVDT1JEX01BUkssXG4gIHR5cGUgU2NyaXB0RmFpbHVyZSxcbn0gZnJvbSBcIi4vcHJvdG9jb2wudHNcIjtcbmltcG9ydCB7IGZvcm1hdEFyZ3MsIHR5cGUgSW5zcGVjdCwganNvblByb2JsZW0sIGpzb25TYWZlLCB1bmJveCB9IGZyb20gXCIuL3ZhbHVlcy50c1wiO1xuXG4vKiogV2hhdCBkaWZmZXJzIGJldHdlZW4gcnVudGltZXMuICovXG5leHBvcnQgaW50ZXJmYWNlIEhvc3Qge1xuICAvKiogV3JpdGVzIHRvIHRoZSBzY3JpcHQncyBzdGRvdXQgKHRoZSByZXN1bHQpLiAqL1xuICBvdXQodGV4dDogc3RyaW5nKTogdm9pZDtcbiAgLyoqIFdyaXRlcyB0byB0aGUgc2NyaXB0J3Mgc3RkZXJyIChkaWFnbm9zdGljcyBhbmQgcmVjb3JkcykuICovXG4gIGVycih0ZXh0OiBzdHJpbmcpOiB2b2lkO1xuICAvKiogRW5kcyB0aGUgcnVuIHdpdGggYGNvZGVgLCBhZnRlciB3aGF0IHdhcyB3cml0dGVuIGhhcyBiZWVuIGRlbGl2ZXJlZC4gKi9cbiAgZXhpdChjb2RlOiBudW1iZXIpOiB2b2lkO1xuICBpbnNwZWN0OiBJbnNwZWN0O1xuICBzZXRBcmdzKGFyZ3M6IHN0cmluZ1tdLCBzY3JpcHQ6IHN0cmluZyk6IHZvaWQ7XG4gIHNldEVudihlbnY6IFJlY29yZDxzdHJpbmcsIHN0cmluZz4pOiB2b2lkO1xuICAvKiogUmVnaXN0ZXJzIHRoZSBoYW5kbGVyIGZvciBlcnJvcnMgbm90aGluZyBjYXVnaHQgKHVuY2F1Z2h0IGV4Y2VwdGlvbnMsIHVuaGFuZGxlZCByZWplY3Rpb25zKS4gKi9cbiAgb25VbmNhdWdodChoYW5kbGVyOiAoZXJyb3I6IHVua25vd24pID0+IHZvaWQpOiB2b2lkO1xuICAvKiogVGhlIHN0YXR1cyB0aGUgc2NyaXB0IHNldCB3aXRob3V0IGV4aXRpbmcgKGBEZW5vLmV4aXRDb2RlYCwgYHByb2Nlc3MuZXhpdENvZGVgKS4gKi9cbiAgZXhpdENvZGUoKTogbnVtYmVyO1xuICAvKipcbiAgICogV2hldGhlciBjb25zb2xlLmxvZyBhbmQgdGhlIG90aGVyIHN0ZG91dCBtZW1iZXJzIG11c3QgYmUgcmVyb3V0ZWQgdGhyb3VnaCBgb3V0YCAoYSBXb3JrZXJcbiAgICogc2hhcmVzIHRoZSBwcm9jZXNzJ3Mgc3Rkb3V0LCB3aGljaCB0aGUgQ0xJIG11c3Qgc2VlIHRvIGNhcCBhbmQgY29sbGVjdCkuXG4gICAqL1xuICByb3V0ZUNvbnNvbGU6IGJvb2xlYW47XG59XG5cbmNvbnN0IFJBTks6IFJlY29yZDxMZXZlbCwgbnVtYmVyPiA9IHsgZGVidWc6IDAsIGluZm86IDEsIHdhcm46IDIsIGVycm9yOiAzIH07XG5cbi8qKiBBIGBmaWxlOmAgVVJMIGZvciBhbiBhYnNvbHV0ZSBwYXRoLCBlYWNoIHNlZ21lbnQgZXNjYXBlZC4gKi9cbmV4cG9ydCBmdW5jdGlvbiBmaWxlVXJsKHBhdGg6IHN0cmluZyk6IHN0cmluZyB7XG4gIHJldHVybiBcImZpbGU6Ly9cIiArIHBhdGguc3BsaXQoXCIvXCIpLm1hcChlbmNvZGVVUklDb21wb25lbnQpLmpvaW4oXCIvXCIpO1xufVxuXG5mdW5jdGlvbiBpbnN0YWxsKHRhcmdldDogUmVjb3JkPHN0cmluZywgdW5rbm93bj4sIG5hbWU6IHN0cmluZywgdmFsdWU6IHVua25vd24pOiB2b2lkIHtcbiAgT2JqZWN0LmRlZmluZVByb3BlcnR5KHRhcmdldCwgbmFtZSwge1xuICAgIHZhbHVlLFxuICAgIHdyaXRhYmxlOiB0cnVlLFxuICAgIGNvbmZpZ3VyYWJsZTogdHJ1ZSxcbiAgICBlbnVtZXJhYmxlOiBmYWxzZSxcbiAgfSk7XG59XG5cbmZ1bmN0aW9uIG5hbWVkPFQgZXh0ZW5kcyAoLi4uYXJnczogbmV2ZXJbXSkgPT4gdW5rbm93bj4obmFtZTogc3RyaW5nLCBmbjogVCk6IFQge1xuICBPYmplY3QuZGVmaW5lUHJvcGVydHkoZm4sIFwibmFtZVwiLCB7IHZhbHVlOiBuYW1lIH0pO1xuICByZXR1cm4gZm47XG59XG5cbi8qKlxuICogUmVkaXJlY3RzIHRoZSBjb25zb2xlIGZhaXRoZnVsbHk6IGVycm9yLCB3YXJuLCBpbmZvLCBkZWJ1ZywgdHJhY2UgYW5kIGZhaWxlZCBhc3NlcnRzIGJlY29tZVxuICogcmVjb3JkcyBhdCB0aGVpciBsZXZlbDsgY29uc29sZS5sb2cgc3RheXMgdGhlIHNjcmlwdCdzIHN0ZG91dC4gSW4gYSBXb3JrZXIgdGhlIG1lbWJlcnMgdGhhdFxuICogcHJpbnQgdG8gc3Rkb3V0IGFyZSByZWltcGxlbWVudGVkIG92ZXIgYGhvc3Qub3V0YCwgd2l0aCB0aGUgcnVudGltZSdzIG93biBpbnNwZWN0LlxuICovXG5mdW5jdGlvbiBjYXB0dXJlQ29uc29sZShob3N0OiBIb3N0LCByZWNvcmQ6IChyOiBMb2dSZWNvcmQpID0+IHZvaWQsIG1pbjogbnVtYmVyKTogdm9pZCB7XG4gIGNvbnN0IGMgPSBjb25zb2xlIGFzIHVua25vd24gYXMgUmVjb3JkPHN0cmluZywgdW5rbm93bj47XG4gIGNvbnN0IHRvUmVjb3JkID0gKGxldmVsOiBMZXZlbCwgcHJlZml4ID0gXCJcIikgPT4gKC4uLmFyZ3M6IHVua25vd25bXSkgPT4ge1xuICAgIGlmIChSQU5LW2xldmVsXSA8IG1pbikgcmV0dXJuO1xuICAgIHJlY29yZCh7XG4gICAgICB0czogbmV3IERhdGUoKS50b0lTT1N0cmluZygpLFxuICAgICAgbGV2ZWwsXG4gICAgICBtc2c6IHByZWZpeCArIGZvcm1hdEFyZ3MoYXJncywgaG9zdC5pbnNwZWN0KSxcbiAgICAgIC4uLihhcmdzLmxlbmd0aCA+IDAgPyB7IGFyZ3M6IGFyZ3MubWFwKChhKSA9PiBqc29uU2FmZShhKSkgfSA6IHt9KSxcbiAgICAgIGNvbnNvbGU6IHRydWUsXG4gICAgfSk7XG4gIH07XG4gIGZvciAoY29uc3QgbGV2ZWwgb2YgW1wiZXJyb3JcIiwgXCJ3YXJuXCIsIFwiaW5mb1wiLCBcImRlYnVnXCJdIGFzIGNvbnN0KSB7XG4gICAgY1tsZXZlbF0gPSBuYW1lZChsZXZlbCwgdG9SZWNvcmQobGV2ZWwpKTtcbiAgfVxuICBjb25zdCB0cmFjZSA9IHRvUmVjb3JkKFwiZGVidWdcIiwgXCJUcmFjZTogXCIpO1xuICBjLnRyYWNlID0gbmFtZWQoXCJ0cmFjZVwiLCAoLi4uYXJnczogdW5rbm93bltdKSA9PiB7XG4gICAgY29uc3Qgc3RhY2sgPSAobmV3IEVycm9yKCkuc3RhY2sgPz8gXCJcIikuc3BsaXQoXCJcXG5cIikuc2xpY2UoMikuam9pbihcIlxcblwiKTtcbiAgICB0cmFjZSguLi5hcmdzLCAuLi4oc3RhY2sgPyBbXCJcXG5cIiArIHN0YWNrXSA6IFtdKSk7XG4gIH0pO1xuICBjb25zdCBmYWlsZWQgPSB0b1JlY29yZChcImVycm9yXCIsIFwiQXNzZXJ0aW9uIGZhaWxlZFwiKTtcbiAgYy5hc3NlcnQgPSBuYW1lZChcImFzc2VydFwiLCAoY29uZGl0aW9uPzogdW5rbm93biwgLi4uYXJnczogdW5rbm93bltdKSA9PiB7XG4gICAgaWYgKCFjb25kaXRpb24pIGZhaWxlZCguLi4oYXJncy5sZW5ndGggPyBbXCI6XCIsIC4uLmFyZ3NdIDogW10pKTtcbiAgfSk7XG4gIGlmICghaG9zdC5yb3V0ZUNvbnNvbGUpIHJldHVybjtcbiAgbGV0IGluZGVudCA9IFwiXCI7XG4gIGNvbnN0IHByaW50ID0gKHRleHQ6IHN0cmluZykgPT5cbiAgICBob3N0Lm91dCgoaW5kZW50ID8gdGV4dC5zcGxpdChcIlxcblwiKS5tYXAoKGwpID0+IGluZGVudCArIGwpLmpvaW4oXCJcXG5cIikgOiB0ZXh0KSArIFwiXFxuXCIpO1xuICBjb25zdCBsb2cgPSAoLi4uYXJnczogdW5rbm93bltdKSA9PiBwcmludChmb3JtYXRBcmdzKGFyZ3MsIGhvc3QuaW5zcGVjdCkpO1xuICBjLmxvZyA9IG5hbWVkKFwibG9nXCIsIGxvZyk7XG4gIGMuZGlyID0gbmFtZWQoXCJkaXJcIiwgKHZhbHVlOiB1bmtub3duKSA9PiBwcmludChob3N0Lmluc3BlY3QodmFsdWUpKSk7XG4gIGMuZGlyeG1sID0gbmFtZWQoXCJkaXJ4bWxcIiwgbG9nKTtcbiAgYy50YWJsZSA9IG5hbWVkKFwidGFibGVcIiwgKGRhdGE6IHVua25vd24pID0+IHByaW50KGhvc3QuaW5zcGVjdChkYXRhKSkpO1xuICBjLmdyb3VwID0gbmFtZWQoXCJncm91cFwiLCAoLi4uYXJnczogdW5rbm93bltdKSA9PiB7XG4gICAgaWYgKGFyZ3MubGVuZ3RoKSBsb2coLi4uYXJncyk7XG4gICAgaW5kZW50ICs9IFwiICBcIjtcbiAgfSk7XG4gIGMuZ3JvdXBDb2xsYXBzZWQgPSBuYW1lZChcImdyb3VwQ29sbGFwc2VkXCIsIGMuZ3JvdXAgYXMgKC4uLmE6IHVua25vd25bXSkgPT4gdm9pZCk7XG4gIGMuZ3JvdXBFbmQgPSBuYW1lZChcImdyb3VwRW5kXCIsICgpID0+IHZvaWQgKGluZGVudCA9IGluZGVudC5zbGljZSgyKSkpO1xuICBjb25zdCBjb3VudHMgPSBuZXcgTWFwPHN0cmluZywgbnVtYmVyPigpO1xuICBjLmNvdW50ID0gbmFtZWQoXCJjb3VudFwiLCAobGFiZWwgPSBcImRlZmF1bHRcIikgPT4ge1xuICAgIGNvbnN0IG4gPSAoY291bnRzLmdldChsYWJlbCkgPz8gMCkgKyAxO1xuICAgIGNvdW50cy5zZXQobGFiZWwsIG4pO1xuICAgIHByaW50KGAke2xhYmVsfTogJHtufWApO1xuICB9KTtcbiAgYy5jb3VudFJlc2V0ID0gbmFtZWQoXCJjb3VudFJlc2V0XCIsIChsYWJlbCA9IFwiZGVmYXVsdFwiKSA9PiB2b2lkIGNvdW50cy5kZWxldGUobGFiZWwpKTtcbiAgY29uc3QgdGltZXJzID0gbmV3IE1hcDxzdHJpbmcsIG51bWJlcj4oKTtcbiAgY29uc3QgZWxhcHNlZCA9IChsYWJlbDogc3RyaW5nKSA9PlxuICAgIGAke2xhYmVsfTogJHsocGVyZm9ybWFuY2Uubm93KCkgLSB0aW1lcnMuZ2V0KGxhYmVsKSEpLnRvRml4ZWQoMyl9bXNgO1xuICBjLnRpbWUgPSBuYW1lZChcInRpbWVcIiwgKGxhYmVsID0gXCJkZWZhdWx0XCIpID0+IHZvaWQgdGltZXJzLnNldChsYWJlbCwgcGVyZm9ybWFuY2Uubm93KCkpKTtcbiAgYy50aW1lTG9nID0gbmFtZWQoXCJ0aW1lTG9nXCIsIChsYWJlbCA9IFwiZGVmYXVsdFwiLCAuLi5hcmdzOiB1bmtub3duW10pID0+IHtcbiAgICBpZiAodGltZXJzLmhhcyhsYWJlbCkpIGxvZyhlbGFwc2VkKGxhYmVsKSwgLi4uYXJncyk7XG4gIH0pO1xuICBjLnRpbWVFbmQgPSBuYW1lZChcInRpbWVFbmRcIiwgKGxhYmVsID0gXCJkZWZhdWx0XCIpID0+IHtcbiAgICBpZiAoIXRpbWVycy5oYXMobGFiZWwpKSByZXR1cm47XG4gICAgcHJpbnQoZWxhcHNlZChsYWJlbCkpO1xuICAgIHRpbWVycy5kZWxldGUobGFiZWwpO1xuICB9KTtcbn1cblxuZnVuY3Rpb24gcmVuZGVyUmVzdWx0KHZhbHVlOiB1bmtub3duKTogc3RyaW5nIHtcbiAgY29uc3QgdiA9IHVuYm94KHZhbHVlKTtcbiAgaWYgKHR5cGVvZiB2ID09PSBcInN0cmluZ1wiKSByZXR1cm4gdi5lbmRzV2l0aChcIlxcblwiKSA/IHYgOiB2ICsgXCJcXG5cIjtcbiAgcmV0dXJuIEpTT04uc3RyaW5naWZ5KHYsIG51bGwsIDIpICsgXCJcXG5cIjtcbn1cblxuZnVuY3Rpb24gZXhwb3J0c09mKG1vZDogUmVjb3JkPHN0cmluZywgdW5rbm93bj4pOiBzdHJpbmdbXSB7XG4gIHJldHVybiBPYmplY3Qua2V5cyhtb2QpLmZpbHRlcigoaykgPT4gdHlwZW9mIG1vZFtrXSA9PT0gXCJmdW5jdGlvblwiKS5zb3J0KCk7XG59XG5cbi8qKiBSdW5zIG9uZSBzY3JpcHQgdW5kZXIgYGhvc3RgLCB0aGVuIGNhbGxzIGBob3N0LmV4aXRgIHdpdGggaXRzIHN0YXR1cy4gKi9cbmV4cG9ydCBhc3luYyBmdW5jdGlvbiBsYXVuY2goaG9zdDogSG9zdCwgY2ZnOiBMYXVuY2hDb25maWcpOiBQcm9taXNlPHZvaWQ+IHtcbiAgY29uc3QgZmN0eDogRmFpbHVyZUNvbnRleHQgPSB7XG4gICAgc2NyaXB0OiBjZmcuc2NyaXB0LFxuICAgIGxhdW5jaGVyRGlyOiBjZmcubGF1bmNoZXJEaXIsXG4gICAgLi4uKGNmZy5jbGllbnQgPyB7IGNsaWVudDogY2ZnLmNsaWVudCB9IDoge30pLFxuICB9O1xuICBsZXQgZmluaXNoZWQgPSBmYWxzZTtcbiAgY29uc3Qgd3JpdGUgPSAobGluZTogdW5rbm93bikgPT4gaG9zdC5lcnIoUkVDT1JEX01BUksgKyBKU09OLnN0cmluZ2lmeShsaW5lKSArIFwiXFxuXCIpO1xuICBjb25zdCBjb250cm9sID0gKGM6IENvbnRyb2xSZWNvcmQpID0+IHdyaXRlKGMpO1xuICBjb25zdCBmaW5pc2ggPSAoY29kZTogbnVtYmVyKSA9PiB7XG4gICAgaWYgKGZpbmlzaGVkKSByZXR1cm47XG4gICAgZmluaXNoZWQgPSB0cnVlO1xuICAgIGhvc3QuZXhpdChjb2RlKTtcbiAgfTtcbiAgY29uc3QgZmFpbCA9IChmYWlsdXJlOiBTY3JpcHRGYWlsdXJlLCBjb2RlID0gRVhJVF9GQUlMRUQpID0+IHtcbiAgICBpZiAoZmluaXNoZWQpIHJldHVybjtcbiAgICBjb250cm9sKHsgbWNweDogXCJlcnJvclwiLCBmYWlsdXJlIH0pO1xuICAgIGZpbmlzaChjb2RlKTtcbiAgfTtcblxuICBpZiAoY2ZnLmVudikgaG9zdC5zZXRFbnYoY2ZnLmVudik7XG4gIGhvc3Quc2V0QXJncyhjZmcuYXJncywgY2ZnLnNjcmlwdCk7XG4gIC8vIFRoZSBjbGllbnQncyBuYW1lc3BhY2VzLCBzbyB0aGF0IGEgbWlzc3BlbHQgb25lIChvciB0b29sKSBpcyBuYW1lZCB3aXRoIHdoYXQgZXhpc3RzLlxuICBsZXQgbmFtZXNwYWNlczogUmVjb3JkPHN0cmluZywgdW5rbm93bj4gPSB7fTtcbiAgY29uc3QgZXhwbGFpbiA9IChmYWlsdXJlOiBTY3JpcHRGYWlsdXJlKTogU2NyaXB0RmFpbHVyZSA9PiB7XG4gICAgaWYgKGZhaWx1cmUua2luZCAhPT0gXCJ1bmNhdWdodFwiIHx8ICFjZmcuY2xpZW50KSByZXR1cm4gZmFpbHVyZTtcbiAgICBjb25zdCBuYW1lcyA9IE9iamVjdC5rZXlzKG5hbWVzcGFjZXMpO1xuICAgIGNvbnN0IHVuZGVmaW5lZE5hbWUgPSAvXihcXHcrKSBpcyBub3QgZGVmaW5lZC8uZXhlYyhmYWlsdXJlLm1lc3NhZ2UpPy5bMV07XG4gICAgaWYgKHVuZGVmaW5lZE5hbWUgJiYgIW5hbWVzLmluY2x1ZGVzKHVuZGVmaW5lZE5hbWUpKSB7XG4gICAgICByZXR1cm4ge1xuICAgICAgICAuLi5mYWlsdXJlLFxuICAgICAgICBoaW50OiBgbm8gbmFtZXNwYWNlIFwiJHt1bmRlZmluZWROYW1lfVwiOyB0aGUgbmFtZXNwYWNlcyBhcmUgJHtcbiAgICAgICAgICBuYW1lcy5qb2luKFwiLCBcIikgfHwgXCIobm9uZSlcIlxuICAgICAgICB9IChcXGBtY3B4IGxzXFxgKWAsXG4gICAgICB9O1xuICAgIH1cbiAgICBjb25zdCBjYWxsID0gL14oXFx3KylcXC4oXFx3KykgaXMgbm90IGEgZnVuY3Rpb24vLmV4ZWMoZmFpbHVyZS5tZXNzYWdlKTtcbiAgICBjb25zdCBucyA9IGNhbGwgJiYgbmFtZXMuaW5jbHVkZXMoY2FsbFsxXSlcbiAgICAgID8gbmFtZXNwYWNlc1tjYWxsWzFdXSBhcyBSZWNvcmQ8c3RyaW5nLCB1bmtub3duPlxuICAgICAgOiB1bmRlZmluZWQ7XG4gICAgaWYgKGNhbGwgJiYgbnMpIHtcbiAgICAgIGNvbnN0IHRvb2xzID0gT2JqZWN0LmtleXMobnMpO1xuICAgICAgcmV0dXJuIHtcbiAgICAgICAgLi4uZmFpbHVyZSxcbiAgICAgICAgaGludDogdG9vbHMubGVuZ3RoXG4gICAgICAgICAgPyBgJHtjYWxsWzFdfSBoYXMgbm8gdG9vbCBcIiR7Y2FsbFsyXX1cIjsgaXRzIHRvb2xzIGFyZSAke3Rvb2xzLmpvaW4oXCIsIFwiKX0gKFxcYG1jcHggdHlwZXMgJHtcbiAgICAgICAgICAgIGNhbGxbMV1cbiAgICAgICAgICB9XFxgKWBcbiAgICAgICAgICA6IGB0aGUgY2xpZW50IGhhcyBubyB0b29scyBmb3IgJHtcbiAgICAgICAgICAgIGNhbGxbMV1cbiAgICAgICAgICB9OiBpdCB3YXMgbmV2ZXIgbGlzdGVkLCBvciBsaXN0aW5nIGZhaWxlZCAoXFxgbWNweCBsc1xcYCBzYXlzIHdoaWNoOyBcXGBtY3B4IHJlZnJlc2hcXGAgbGlzdHMgaXQpYCxcbiAgICAgIH07XG4gICAgfVxuICAgIHJldHVybiBmYWlsdXJlO1xuICB9O1xuICBob3N0Lm9uVW5jYXVnaHQoKGVycm9yKSA9PiBmYWlsKGV4cGxhaW4oZGVzY3JpYmVGYWlsdXJlKGVycm9yLCBmY3R4KSkpKTtcblxuICBjb25zdCBnID0gZ2xvYmFsVGhpcyBhcyB1bmtub3duIGFzIFJlY29yZDxzdHJpbmcsIHVua25vd24+O1xuICBjb25zdCBjYWxsU2l0ZSA9ICgpID0+IHtcbiAgICBjb25zdCBhdCA9IHVzZXJMb2NhdGlvbihuZXcgRXJyb3IoKS5zdGFjayA/PyBcIlwiLCBmY3R4KTtcbiAgICByZXR1cm4gYXQgPyBgJHthdC5maWxlfToke2F0LmxpbmV9JHthdC5jb2wgPyBgOiR7YXQuY29sfWAgOiBcIlwifWAgOiB1bmRlZmluZWQ7XG4gIH07XG4gIGNvbnN0IGxvZzogTG9nZ2VyID0gY3JlYXRlTG9nZ2VyKHtcbiAgICB3cml0ZSxcbiAgICBsZXZlbDogY2ZnLmxvZ0xldmVsLFxuICAgIGluc3BlY3Q6IGhvc3QuaW5zcGVjdCxcbiAgICBjYWxsU2l0ZSxcbiAgfSk7XG4gIGNvbnN0IGVtaXQgPSBuYW1lZChcImVtaXRcIiwgKHZhbHVlOiB1bmtub3duKSA9PiB7XG4gICAgY29uc3QgcHJvYmxlbSA9IGpzb25Qcm9ibGVtKHZhbHVlLCBcInRoZSB2YWx1ZVwiKTtcbiAgICBpZiAocHJvYmxlbSkgdGhyb3cgbmV3IFR5cGVFcnJvcihgZW1pdCgpIHRha2VzIEpTT04gdmFsdWVzOiAke3Byb2JsZW19YCk7XG4gICAgaWYgKGNmZy5qc29uKSBjb250cm9sKHsgbWNweDogXCJlbWl0XCIsIHZhbHVlOiB1bmJveCh2YWx1ZSkgfSk7XG4gICAgZWxzZSBob3N0Lm91dChKU09OLnN0cmluZ2lmeSh1bmJveCh2YWx1ZSkpICsgXCJcXG5cIik7XG4gIH0pO1xuICBpbnN0YWxsKGcsIFwibG9nXCIsIGxvZyk7XG4gIGluc3RhbGwoZywgXCJlbWl0XCIsIGVtaXQpO1xuICBpbnN0YWxsKGcsIFwiYXJnc1wiLCBbLi4uY2ZnLmFyZ3NdKTtcbiAgY2FwdHVyZUNvbnNvbGUoaG9zdCwgd3JpdGUsIFJBTktbY2ZnLmxvZ0xldmVsXSA/PyAxKTtcblxuICBpZiAoY2ZnLmNsaWVudCkge1xuICAgIGxldCBjbGllbnQ6IFJlY29yZDxzdHJpbmcsIHVua25vd24+O1xuICAgIHRyeSB7XG4gICAgICBjbGllbnQgPSBhd2FpdCBpbXBvcnQoZmlsZVVybChjZmcuY2xpZW50KSk7XG4gICAgfSBjYXRjaCAoZXJyb3IpIHtcbiAgICAgIHJldHVybiBmYWlsKGRlc2NyaWJlRmFpbHVyZShlcnJvciwgZmN0eCwgdHJ1ZSkpO1xuICAgIH1cbiAgICBuYW1lc3BhY2VzID0gKGNsaWVudC5kZWZhdWx0ID8/IHt9KSBhcyBSZWNvcmQ8c3RyaW5nLCB1bmtub3duPjtcbiAgICBjb25zdCBnbG9iYWxzID0gKGNsaWVudC5fX21jcHhHbG9iYWxzID8/IHt9KSBhcyBSZWNvcmQ8c3RyaW5nLCB1bmtub3duPjtcbiAgICAvLyBBIG5hbWVzcGFjZSBuZXZlciBoaWRlcyBhIHJ1bnRpbWUgZ2xvYmFsIChhIHNlcnZlciBuYW1lZCBcInByb2Nlc3NcIiBzdGF5cyB0b29scy5wcm9jZXNzKS5cbiAgICBmb3IgKGNvbnN0IFtuYW1lLCB2YWx1ZV0gb2YgT2JqZWN0LmVudHJpZXMoZ2xvYmFscykpIGlmICghKG5hbWUgaW4gZykpIGluc3RhbGwoZywgbmFtZSwgdmFsdWUpO1xuICB9XG5cbiAgbGV0IG1vZDogUmVjb3JkPHN0cmluZywgdW5rbm93bj47XG4gIHRyeSB7XG4gICAgbW9kID0gYXdhaXQgaW1wb3J0KGZpbGVVcmwoY2ZnLnNjcmlwdCkpO1xuICB9IGNhdGNoIChlcnJvcikge1xuICAgIHJldHVybiBmYWlsKGV4cGxhaW4oZGVzY3JpYmVGYWlsdXJlKGVycm9yLCBmY3R4LCB0cnVlKSkpO1xuICB9XG4gIGlmIChmaW5pc2hlZCkgcmV0dXJuO1xuXG4gIGxldCByZXN1bHQ6IHVua25vd247XG4gIGxldCB3aGF0ID0gXCJ0aGUgZGVmYXVsdCBleHBvcnRcIjtcbiAgdHJ5IHtcbiAgICBpZiAoY2ZnLmV4cG9ydCAhPT0gdW5kZWZpbmVkKSB7XG4gICAgICB3aGF0ID0gYGV4cG9ydCBcIiR7Y2ZnLmV4cG9ydH1cImA7XG4gICAgICBjb25zdCBmbiA9IG1vZFtjZmcuZXhwb3J0XTtcbiAgICAgIGlmICh0eXBlb2YgZm4gIT09IFwiZnVuY3Rpb25cIikge1xuICAgICAgICBjb25zdCBleHBvcnRzID0gZXhwb3J0c09mKG1vZCk7XG4gICAgICAgIHJldHVybiBmYWlsKHtcbiAgICAgICAgICBraW5kOiBcImV4cG9ydFwiLFxuICAgICAgICAgIG5hbWU6IFwiVXNhZ2VFcnJvclwiLFxuICAgICAgICAgIG1lc3NhZ2U6IGAke1xuICAgICAgICAgICAgZm4gPT09IHVuZGVmaW5lZCA/IFwiVGhlcmUgaXMgbm9cIiA6IFwiTm90IGEgZnVuY3Rpb246XCJcbiAgICAgICAgICB9IGV4cG9ydCBcIiR7Y2ZnLmV4cG9ydH1cIjsgJHtcbiAgICAgICAgICAgIGV4cG9ydHMubGVuZ3RoXG4gICAgICAgICAgICAgID8gYHRoZSBmdW5jdGlvbnMgaXQgZXhwb3J0czogJHtleHBvcnRzLmpvaW4oXCIsIFwiKX1gXG4gICAgICAgICAgICAgIDogXCJpdCBleHBvcnRzIG5vIGZ1bmN0aW9uc1wiXG4gICAgICAgICAgfWAsXG4gICAgICAgICAgZXhwb3J0cyxcbiAgICAgICAgfSwgRVhJVF9VU0FHRSk7XG4gICAgICB9XG4gICAgICByZXN1bHQgPSBhd2FpdCBmbiguLi5jZmcuYXJncyk7XG4gICAgfSBlbHNlIGlmICh0eXBlb2YgbW9kLmRlZmF1bHQgPT09IFwiZnVuY3Rpb25cIikge1xuICAgICAgcmVzdWx0ID0gYXdhaXQgbW9kLmRlZmF1bHQoWy4uLmNmZy5hcmdzXSk7XG4gICAgfVxuICB9IGNhdGNoIChlcnJvcikge1xuICAgIHJldHVybiBmYWlsKGV4cGxhaW4oZGVzY3JpYmVGYWlsdXJlKGVycm9yLCBmY3R4KSkpO1xuICB9XG4gIGlmIChmaW5pc2hlZCkgcmV0dXJuO1xuICBpZiAocmVzdWx0ICE9PSB1bmRlZmluZWQpIHtcbiAgICBjb25zdCBwcm9ibGVtID0ganNvblByb2JsZW0ocmVzdWx0LCBcInRoZSByZXN1bHRcIik7XG4gICAgaWYgKHByb2JsZW0pIHtcbiAgICAgIHJldHVybiBmYWlsKHtcbiAgICAgICAga2luZDogXCJyZXN1bHRcIixcbiAgICAgICAgbmFtZTogXCJUeXBlRXJyb3JcIixcbiAgICAgICAgbWVzc2FnZTogYCR7d2hhdFswXS50b1VwcGVyQ2FzZSgpfSR7XG4gICAgICAgICAgd2hhdC5zbGljZSgxKVxuICAgICAgICB9IHJldHVybmVkIGEgdmFsdWUgdGhhdCBpcyBub3QgSlNPTjogJHtwcm9ibGVtfWAsXG4gICAgICB9KTtcbiAgICB9XG4gICAgaWYgKGNmZy5qc29uKSBjb250cm9sKHsgbWNweDogXCJyZXN1bHRcIiwgdmFsdWU6IHVuYm94KHJlc3VsdCkgfSk7XG4gICAgZWxzZSBob3N0Lm91dChyZW5kZXJSZXN1bHQocmVzdWx0KSk7XG4gIH1cbiAgZmluaXNoKGhvc3QuZXhpdENvZGUoKSk7XG59XG4iLCAiLy8gRW50cnkgb2YgdGhlIHN1YnByb2Nlc3MgcnVudGltZXM6IGBkZW5vIHJ1biAtQWAsIGBidW5gIG9yIGBub2RlYCBzdGFydCB0aGlzIGZpbGUgd2l0aCB0aGVcbi8vIHNjcmlwdCdzIGFyZ3VtZW50cyBhcyB0aGVpciBvd24sIGFuZCBpdHMgY29uZmlndXJhdGlvbiBpbiB0aGUgX01DUFhfTEFVTkNIIHZhcmlhYmxlLCB3aGljaCBpc1xuLy8gcmVtb3ZlZCBiZWZvcmUgYW55dGhpbmcgb2YgdGhlIHNjcmlwdCdzIHJ1bnMuIEVyYXNhYmxlIFR5cGVTY3JpcHQgb25seSAoTm9kZSBzdHJpcHMgdHlwZXMpLlxuXG5pbXBvcnQgeyB0eXBlIEhvc3QsIGxhdW5jaCB9IGZyb20gXCIuL3J1bnRpbWUudHNcIjtcbmltcG9ydCB7IExBVU5DSF9WQVJJQUJMRSwgdHlwZSBMYXVuY2hDb25maWcgfSBmcm9tIFwiLi9wcm90b2NvbC50c1wiO1xuXG4vLyBkZW5vLWxpbnQtaWdub3JlIG5vLWV4cGxpY2l0LWFueVxuY29uc3QgZyA9IGdsb2JhbFRoaXMgYXMgYW55O1xuXG5mdW5jdGlvbiBkZW5vSG9zdCgpOiBIb3N0IHtcbiAgY29uc3QgZW5jb2RlciA9IG5ldyBUZXh0RW5jb2RlcigpO1xuICBjb25zdCB3cml0ZUFsbCA9IChmaWxlOiB7IHdyaXRlU3luYyhwOiBVaW50OEFycmF5KTogbnVtYmVyIH0sIHRleHQ6IHN0cmluZykgPT4ge1xuICAgIGxldCBieXRlcyA9IGVuY29kZXIuZW5jb2RlKHRleHQpO1xuICAgIHdoaWxlIChieXRlcy5sZW5ndGggPiAwKSBieXRlcyA9IGJ5dGVzLnN1YmFycmF5KGZpbGUud3JpdGVTeW5jKGJ5dGVzKSk7XG4gIH07XG4gIHJldHVybiB7XG4gICAgb3V0OiAodGV4dCkgPT4gd3JpdGVBbGwoZy5EZW5vLnN0ZG91dCwgdGV4dCksXG4gICAgZXJyOiAodGV4dCkgPT4gd3JpdGVBbGwoZy5EZW5vLnN0ZGVyciwgdGV4dCksXG4gICAgZXhpdDogKGNvZGUpID0+IGcuRGVuby5leGl0KGNvZGUpLFxuICAgIGluc3BlY3Q6ICh2YWx1ZSkgPT4gZy5EZW5vLmluc3BlY3QodmFsdWUsIHsgY29sb3JzOiBmYWxzZSB9KSxcbiAgICBzZXRBcmdzKCkge30sXG4gICAgc2V0RW52KGVudikge1xuICAgICAgZm9yIChjb25zdCBba2V5LCB2YWx1ZV0gb2YgT2JqZWN0LmVudHJpZXMoZW52KSkgZy5EZW5vLmVudi5zZXQoa2V5LCB2YWx1ZSk7XG4gICAgfSxcbiAgICBvblVuY2F1Z2h0KGhhbmRsZXIpIHtcbiAgICAgIGcuYWRkRXZlbnRMaXN0ZW5lcihcImVycm9yXCIsIChldmVudDogRXJyb3JFdmVudCkgPT4ge1xuICAgICAgICBldmVudC5wcmV2ZW50RGVmYXVsdCgpO1xuICAgICAgICBoYW5kbGVyKGV2ZW50LmVycm9yID8/IG5ldyBFcnJvcihldmVudC5tZXNzYWdlKSk7XG4gICAgICB9KTtcbiAgICAgIGcuYWRkRXZlbnRMaXN0ZW5lcihcInVuaGFuZGxlZHJlamVjdGlvblwiLCAoZXZlbnQ6IFByb21pc2VSZWplY3Rpb25FdmVudCkgPT4ge1xuICAgICAgICBldmVudC5wcmV2ZW50RGVmYXVsdCgpO1xuICAgICAgICBoYW5kbGVyKGV2ZW50LnJlYXNvbik7XG4gICAgICB9KTtcbiAgICB9LFxuICAgIGV4aXRDb2RlOiAoKSA9PiBOdW1iZXIoZy5EZW5vLmV4aXRDb2RlKSB8fCAwLFxuICAgIHJvdXRlQ29uc29sZTogZmFsc2UsXG4gIH07XG59XG5cbmZ1bmN0aW9uIG5vZGVIb3N0KCk6IEhvc3Qge1xuICBjb25zdCBwcm9jZXNzID0gZy5wcm9jZXNzO1xuICBjb25zdCB1dGlsID0gcHJvY2Vzcy5nZXRCdWlsdGluTW9kdWxlPy4oXCJub2RlOnV0aWxcIik7XG4gIGNvbnN0IGluc3BlY3QgPSBnLkJ1blxuICAgID8gKHZhbHVlOiB1bmtub3duKSA9PiBnLkJ1bi5pbnNwZWN0KHZhbHVlKVxuICAgIDogdXRpbFxuICAgID8gKHZhbHVlOiB1bmtub3duKSA9PiB1dGlsLmluc3BlY3QodmFsdWUsIHsgY29sb3JzOiBmYWxzZSB9KVxuICAgIDogKHZhbHVlOiB1bmtub3duKSA9PiBTdHJpbmcodmFsdWUpO1xuICByZXR1cm4ge1xuICAgIG91dDogKHRleHQpID0+IHZvaWQgcHJvY2Vzcy5zdGRvdXQud3JpdGUodGV4dCksXG4gICAgZXJyOiAodGV4dCkgPT4gdm9pZCBwcm9jZXNzLnN0ZGVyci53cml0ZSh0ZXh0KSxcbiAgICBleGl0KGNvZGUpIHtcbiAgICAgIHByb2Nlc3MuZXhpdENvZGUgPSBjb2RlO1xuICAgICAgLy8gV3JpdGVzIHRvIHBpcGVzIG1heSBzdGlsbCBiZSBxdWV1ZWQ6IGV4aXQgb25jZSBib3RoIHN0cmVhbXMgaGF2ZSB0YWtlbiBldmVyeXRoaW5nLlxuICAgICAgcHJvY2Vzcy5zdGRvdXQud3JpdGUoXCJcIiwgKCkgPT4gcHJvY2Vzcy5zdGRlcnIud3JpdGUoXCJcIiwgKCkgPT4gcHJvY2Vzcy5leGl0KGNvZGUpKSk7XG4gICAgfSxcbiAgICBpbnNwZWN0LFxuICAgIHNldEFyZ3MoYXJncywgc2NyaXB0KSB7XG4gICAgICBwcm9jZXNzLmFyZ3YgPSBbcHJvY2Vzcy5hcmd2WzBdLCBzY3JpcHQsIC4uLmFyZ3NdO1xuICAgIH0sXG4gICAgc2V0RW52KGVudikge1xuICAgICAgT2JqZWN0LmFzc2lnbihwcm9jZXNzLmVudiwgZW52KTtcbiAgICB9LFxuICAgIG9uVW5jYXVnaHQoaGFuZGxlcikge1xuICAgICAgcHJvY2Vzcy5vbihcInVuY2F1Z2h0RXhjZXB0aW9uXCIsIGhhbmRsZXIpO1xuICAgICAgcHJvY2Vzcy5vbihcInVuaGFuZGxlZFJlamVjdGlvblwiLCBoYW5kbGVyKTtcbiAgICB9LFxuICAgIGV4aXRDb2RlOiAoKSA9PiBOdW1iZXIocHJvY2Vzcy5leGl0Q29kZSkgfHwgMCxcbiAgICByb3V0ZUNvbnNvbGU6IGZhbHNlLFxuICB9O1xufVxuXG5jb25zdCByYXcgPSBnLkRlbm8gPyBnLkRlbm8uZW52LmdldChMQVVOQ0hfVkFSSUFCTEUpIDogZy5wcm9jZXNzLmVudltMQVVOQ0hfVkFSSUFCTEVdO1xuaWYgKGcuRGVubykgZy5EZW5vLmVudi5kZWxldGUoTEFVTkNIX1ZBUklBQkxFKTtcbmVsc2UgZGVsZXRlIGcucHJvY2Vzcy5lbnZbTEFVTkNIX1ZBUklBQkxFXTtcbmlmICghcmF3KSB0aHJvdyBuZXcgRXJyb3IoYGxhdW5jaGVyL21haW4udHMgaXMgc3RhcnRlZCBieSBtY3B4LCB3aXRoICR7TEFVTkNIX1ZBUklBQkxFfSBzZXRgKTtcbmF3YWl0IGxhdW5jaChnLkRlbm8gPyBkZW5vSG9zdCgpIDogbm9kZUhvc3QoKSwgSlNPTi5wYXJzZShyYXcpIGFzIExhdW5jaENvbmZpZyk7XG4iXSwKICAibWFwcGluZ3MiOiAiO0FBS0EsU0FBUyxLQUFLLE9BQWE7QUFDekIsUUFBTSxPQUFPLE1BQU0sYUFBYTtBQUNoQyxTQUFPLE9BQU8sS0FBSyxJQUFBLEtBQVM7QUFDOUI7QUFFQSxJQUFNLFdBQW1DO0VBQ3ZDLEtBQUs7RUFDTCxLQUFLO0VBQ0wsU0FBUztFQUNULFNBQVM7RUFDVCxTQUFTO0VBQ1QsYUFBYTtFQUNiLG1CQUFtQjtFQUNuQixVQUFVO0FBQ1o7QUFRTyxTQUFTLFlBQVksT0FBZ0IsTUFBWTtBQUN0RCxRQUFNLE9BQU8sb0JBQUksSUFBQTtBQUNqQixNQUFJLFVBQVU7QUFDZCxRQUFNLE9BQU8sQ0FBQyxHQUFZLE9BQUE7QUFDeEIsUUFBSSxFQUFFLFVBQVUsSUFBVyxRQUFPO0FBQ2xDLFlBQVEsT0FBTyxHQUFBO01BQ2IsS0FBSztNQUNMLEtBQUs7QUFDSCxlQUFPO01BQ1QsS0FBSztBQUNILGVBQU8sT0FBTyxTQUFTLENBQUEsSUFBSyxTQUFZLEdBQUcsRUFBQSxPQUFTLENBQUE7TUFDdEQsS0FBSztBQUNILGVBQU8sR0FBRyxFQUFBLGlCQUFtQixDQUFBO01BQy9CLEtBQUs7QUFDSCxlQUFPLEdBQUcsRUFBQTtNQUNaLEtBQUs7QUFDSCxlQUFPLEdBQUcsRUFBQSxpQkFBbUIsRUFBRSxPQUFPLEtBQUssRUFBRSxJQUFJLE1BQU0sRUFBQTtNQUN6RCxLQUFLO0FBQ0gsZUFBTztJQUNYO0FBQ0EsUUFBSSxNQUFNLEtBQU0sUUFBTztBQUN2QixVQUFNLElBQUk7QUFDVixRQUFJLGFBQWEsVUFBVSxhQUFhLFVBQVUsYUFBYSxTQUFTO0FBQ3RFLGFBQU8sS0FBSyxFQUFFLFFBQU8sR0FBSSxFQUFBO0lBQzNCO0FBQ0EsUUFBSSxLQUFLLElBQUksQ0FBQSxFQUFJLFFBQU8sR0FBRyxFQUFBO0FBQzNCLFFBQUksT0FBTyxFQUFFLFdBQVcsV0FBWSxRQUFPO0FBQzNDLFVBQU0sT0FBTyxFQUFFLGFBQWEsUUFBUTtBQUNwQyxRQUFJLE9BQU8sT0FBTyxVQUFVLElBQUEsRUFBTyxRQUFPLEdBQUcsRUFBQSxPQUFTLEtBQUssQ0FBQSxDQUFBLEtBQU8sU0FBUyxJQUFBLENBQUs7QUFDaEYsUUFBSSxZQUFZLE9BQU8sQ0FBQSxHQUFJO0FBQ3pCLGFBQU8sR0FBRyxFQUFBLE9BQVMsS0FBSyxDQUFBLENBQUE7SUFDMUI7QUFDQSxTQUFLLElBQUksQ0FBQTtBQUNULFFBQUk7QUFDRixVQUFJLE1BQU0sUUFBUSxDQUFBLEdBQUk7QUFDcEIsaUJBQVMsSUFBSSxHQUFHLElBQUksRUFBRSxRQUFRLEtBQUs7QUFDakMsZ0JBQU0sSUFBSSxFQUFFLENBQUEsTUFBTyxTQUFZLFNBQVksS0FBSyxFQUFFLENBQUEsR0FBSSxHQUFHLEVBQUEsSUFBTSxDQUFBLEdBQUk7QUFDbkUsY0FBSSxFQUFHLFFBQU87UUFDaEI7QUFDQSxlQUFPO01BQ1Q7QUFDQSxpQkFBVyxPQUFPLE9BQU8sS0FBSyxDQUFBLEdBQUk7QUFDaEMsY0FBTSxRQUFRLEVBQUUsR0FBQTtBQUNoQixZQUFJLFVBQVUsT0FBVztBQUN6QixjQUFNLElBQUksS0FDUixPQUNBLHFCQUFxQixLQUFLLEdBQUEsSUFBTyxHQUFHLEVBQUEsSUFBTSxHQUFBLEtBQVEsR0FBRyxFQUFBLElBQU0sS0FBSyxVQUFVLEdBQUEsQ0FBQSxHQUFPO0FBRW5GLFlBQUksRUFBRyxRQUFPO01BQ2hCO0FBQ0EsYUFBTztJQUNULFVBQUE7QUFDRSxXQUFLLE9BQU8sQ0FBQTtJQUNkO0VBQ0Y7QUFDQSxTQUFPLEtBQUssT0FBTyxJQUFBO0FBQ3JCO0FBR08sU0FBUyxNQUFNLE9BQWM7QUFDbEMsTUFBSSxpQkFBaUIsVUFBVSxpQkFBaUIsVUFBVSxpQkFBaUIsU0FBUztBQUNsRixXQUFPLE1BQU0sUUFBTztFQUN0QjtBQUNBLFNBQU87QUFDVDtBQUdPLFNBQVMsVUFBVSxPQUFZO0FBQ3BDLFFBQU0sTUFBK0I7SUFBRSxNQUFNLE1BQU07SUFBTSxTQUFTLE1BQU07RUFBUTtBQUNoRixhQUFXLE9BQU8sT0FBTyxLQUFLLEtBQUEsR0FBUTtBQUNwQyxRQUFJLEdBQUEsSUFBTyxTQUFVLE1BQTZDLEdBQUEsQ0FBSTtFQUN4RTtBQUNBLE1BQUksTUFBTSxNQUFPLEtBQUksUUFBUSxNQUFNO0FBQ25DLFNBQU87QUFDVDtBQU9PLFNBQVMsU0FBUyxPQUFnQixPQUFvQixvQkFBSSxJQUFBLEdBQUs7QUFDcEUsVUFBUSxPQUFPLE9BQUE7SUFDYixLQUFLO0FBQ0gsYUFBTyxHQUFHLEtBQUE7SUFDWixLQUFLO0FBQ0gsYUFBTyxNQUFNLFNBQVE7SUFDdkIsS0FBSztBQUNILGFBQU8sYUFBYSxNQUFNLFFBQVEsV0FBQTtJQUNwQyxLQUFLO0FBQ0gsYUFBTyxPQUFPLFNBQVMsS0FBQSxJQUFTLFFBQVEsT0FBTyxLQUFBO0lBQ2pELEtBQUs7QUFDSDtJQUNGO0FBQ0UsYUFBTztFQUNYO0FBQ0EsTUFBSSxVQUFVLEtBQU0sUUFBTztBQUMzQixRQUFNLElBQUk7QUFDVixNQUFJLGFBQWEsVUFBVSxhQUFhLFVBQVUsYUFBYSxRQUFTLFFBQU8sRUFBRSxRQUFPO0FBQ3hGLE1BQUksS0FBSyxJQUFJLENBQUEsRUFBSSxRQUFPO0FBQ3hCLE1BQUksYUFBYSxNQUFPLFFBQU8sVUFBVSxDQUFBO0FBQ3pDLE1BQUksT0FBTyxFQUFFLFdBQVcsV0FBWSxRQUFPO0FBQzNDLE1BQUksWUFBWSxPQUFPLENBQUEsRUFBSSxRQUFPLElBQUksRUFBRSxhQUFhLFFBQVEsUUFBQSxJQUFZLEVBQUUsVUFBVTtBQUNyRixPQUFLLElBQUksQ0FBQTtBQUNULE1BQUk7QUFDRixRQUFJLGFBQWEsS0FBSztBQUNwQixhQUFPLE9BQU8sWUFBWTtXQUFJO1FBQUcsSUFBSSxDQUFDLENBQUMsR0FBRyxDQUFBLE1BQU87UUFBQyxPQUFPLENBQUE7UUFBSSxTQUFTLEdBQUcsSUFBQTtPQUFNLENBQUE7SUFDakY7QUFDQSxRQUFJLGFBQWEsSUFBSyxRQUFPO1NBQUk7TUFBRyxJQUFJLENBQUMsTUFBTSxTQUFTLEdBQUcsSUFBQSxDQUFBO0FBQzNELFFBQUksTUFBTSxRQUFRLENBQUEsRUFBSSxRQUFPLEVBQUUsSUFBSSxDQUFDLE1BQU0sU0FBUyxHQUFHLElBQUEsQ0FBQTtBQUN0RCxVQUFNLE1BQStCLENBQUM7QUFDdEMsZUFBVyxPQUFPLE9BQU8sS0FBSyxDQUFBLEVBQUksS0FBSSxHQUFBLElBQU8sU0FBUyxFQUFFLEdBQUEsR0FBTSxJQUFBO0FBQzlELFdBQU87RUFDVCxVQUFBO0FBQ0UsU0FBSyxPQUFPLENBQUE7RUFDZDtBQUNGO0FBTU8sU0FBUyxXQUFXLE1BQTBCLFNBQWdCO0FBQ25FLE1BQUksS0FBSyxXQUFXLEVBQUcsUUFBTztBQUM5QixRQUFNLE9BQU87T0FBSTs7QUFDakIsTUFBSSxPQUFPO0FBQ1gsTUFBSSxPQUFPLEtBQUssQ0FBQSxNQUFPLFVBQVU7QUFDL0IsVUFBTSxNQUFNLEtBQUssTUFBSztBQUN0QixXQUFPLElBQUksUUFBUSxtQkFBbUIsQ0FBQyxPQUFPLFNBQUE7QUFDNUMsVUFBSSxTQUFTLElBQUssUUFBTztBQUN6QixVQUFJLEtBQUssV0FBVyxFQUFHLFFBQU87QUFDOUIsWUFBTSxJQUFJLEtBQUssTUFBSztBQUNwQixjQUFRLE1BQUE7UUFDTixLQUFLO0FBQ0gsaUJBQU8sT0FBTyxNQUFNLFdBQ2hCLElBQ0EsT0FBTyxNQUFNLFlBQVksTUFBTSxPQUMvQixRQUFRLENBQUEsSUFDUixPQUFPLENBQUE7UUFDYixLQUFLO1FBQ0wsS0FBSyxLQUFLO0FBQ1IsZ0JBQU0sSUFBSSxPQUFPLE1BQU0sV0FBVyxJQUFJLE9BQU8sQ0FBQTtBQUM3QyxpQkFBTyxPQUFPLE1BQU0sV0FBVyxHQUFHLENBQUEsTUFBTyxPQUFPLFNBQVMsTUFBTSxLQUFLLE1BQU0sQ0FBQSxJQUFLLENBQUE7UUFDakY7UUFDQSxLQUFLO0FBQ0gsaUJBQU8sT0FBTyxPQUFPLENBQUEsQ0FBQTtRQUN2QixLQUFLO0FBQ0gsY0FBSTtBQUNGLG1CQUFPLEtBQUssVUFBVSxDQUFBO1VBQ3hCLFFBQVE7QUFDTixtQkFBTztVQUNUO1FBQ0YsS0FBSztBQUNILGlCQUFPO1FBQ1Q7QUFDRSxpQkFBTyxRQUFRLENBQUE7TUFDbkI7SUFDRixDQUFBO0VBQ0Y7QUFDQSxRQUFNLE9BQU8sS0FBSyxJQUFJLENBQUMsTUFBTyxPQUFPLE1BQU0sV0FBVyxJQUFJLFFBQVEsQ0FBQSxDQUFBO0FBQ2xFLFNBQU87T0FBSyxPQUFPLEtBQUssQ0FBQSxNQUFPLFdBQVc7TUFBQztRQUFRLENBQUE7T0FBUTtJQUFNLEtBQUssR0FBQTtBQUN4RTs7O0FDckxPLElBQU0sU0FBMkI7RUFBQztFQUFTO0VBQVE7RUFBUTs7QUFDbEUsSUFBTSxPQUErQjtFQUFFLE9BQU87RUFBRyxNQUFNO0VBQUcsTUFBTTtFQUFHLE9BQU87QUFBRTtBQUU1RSxJQUFNLFdBQVcsb0JBQUksSUFBSTtFQUFDO0VBQU07RUFBUztFQUFPO0VBQVk7RUFBUTtFQUFVO0NBQVU7QUFDeEYsSUFBTSxjQUFjO0FBd0JwQixTQUFTLE9BQU8sT0FBZ0MsTUFBWTtBQUMxRCxNQUFJLE9BQU8sT0FBTyxPQUFPLElBQUEsRUFBTyxRQUFPO0lBQUUsT0FBTztJQUFNLE9BQU8sTUFBTSxJQUFBO0VBQU07QUFDekUsTUFBSSxLQUFjO0FBQ2xCLGFBQVcsUUFBUSxLQUFLLE1BQU0sR0FBQSxHQUFNO0FBQ2xDLFFBQUksT0FBTyxRQUFRLE9BQU8sT0FBTyxZQUFZLENBQUMsT0FBTyxPQUFPLElBQUksSUFBQSxFQUFPLFFBQU87TUFBRSxPQUFPO0lBQU07QUFDN0YsU0FBTSxHQUErQixJQUFBO0VBQ3ZDO0FBQ0EsU0FBTztJQUFFLE9BQU87SUFBTSxPQUFPO0VBQUc7QUFDbEM7QUFFQSxTQUFTLEtBQUssT0FBYztBQUMxQixNQUFJLE9BQU8sVUFBVSxTQUFVLFFBQU87QUFDdEMsTUFBSSxVQUFVLFFBQVEsT0FBTyxVQUFVLFNBQVUsUUFBTyxPQUFPLEtBQUE7QUFDL0QsTUFBSSxpQkFBaUIsTUFBTyxRQUFPLEdBQUcsTUFBTSxJQUFJLEtBQUssTUFBTSxPQUFPO0FBQ2xFLE1BQUk7QUFDRixXQUFPLEtBQUssVUFBVSxTQUFTLEtBQUEsQ0FBQTtFQUNqQyxRQUFRO0FBQ04sV0FBTyxPQUFPLEtBQUE7RUFDaEI7QUFDRjtBQWFPLFNBQVMsWUFDZCxVQUNBLE9BQThCO0FBRTlCLE1BQUksWUFBWTtBQUNoQixRQUFNLE1BQU0sU0FBUyxRQUFRLGFBQWEsQ0FBQyxPQUFPLFNBQUE7QUFDaEQsZ0JBQVk7QUFDWixRQUFJLFVBQVUsS0FBTSxRQUFPO0FBQzNCLFFBQUksVUFBVSxLQUFNLFFBQU87QUFDM0IsVUFBTSxNQUFNLE9BQU8sT0FBTyxJQUFBO0FBQzFCLFdBQU8sSUFBSSxRQUFRLEtBQUssSUFBSSxLQUFLLElBQUk7RUFDdkMsQ0FBQTtBQUNBLFNBQU87SUFBRTtJQUFLO0VBQVU7QUFDMUI7QUFFQSxTQUFTLGNBQWMsT0FBYztBQUNuQyxNQUFJLFVBQVUsUUFBUSxPQUFPLFVBQVUsU0FBVSxRQUFPO0FBQ3hELFFBQU0sUUFBUSxPQUFPLGVBQWUsS0FBQTtBQUNwQyxTQUFPLFVBQVUsT0FBTyxhQUFhLFVBQVU7QUFDakQ7QUFHTyxTQUFTLGFBQWEsU0FBd0IsUUFBaUMsQ0FBQyxHQUFDO0FBQ3RGLFFBQU0sTUFBTSxLQUFLLFFBQVEsS0FBSyxLQUFLO0FBQ25DLFFBQU0sU0FBUyxDQUFDLE9BQWMsS0FBYyxTQUFBO0FBQzFDLFFBQUksS0FBSyxLQUFBLElBQVMsSUFBSztBQUN2QixVQUFNLFFBQWlDO01BQUUsR0FBRztJQUFNO0FBQ2xELFFBQUksT0FBTztBQUNYLFFBQUksS0FBSyxTQUFTLEtBQUssY0FBYyxLQUFLLENBQUEsQ0FBRSxHQUFHO0FBQzdDLGFBQU8sT0FBTyxPQUFPLEtBQUssQ0FBQSxDQUFFO0FBQzVCLGFBQU8sS0FBSyxNQUFNLENBQUE7SUFDcEI7QUFDQSxRQUFJO0FBQ0osUUFBSSxPQUFPLFFBQVEsU0FBVSxRQUFPO2FBQzNCLGVBQWUsT0FBTztBQUM3QixhQUFPLEdBQUcsSUFBSSxJQUFJLEtBQUssSUFBSSxPQUFPO0FBQ2xDLGFBQU87UUFBQztXQUFROztJQUNsQixNQUFPLFFBQU8sUUFBUSxRQUFRLEdBQUE7QUFDOUIsVUFBTSxFQUFFLEtBQUssUUFBUSxVQUFTLElBQUssWUFBWSxNQUFNLEtBQUE7QUFDckQsVUFBTSxNQUFpQjtNQUFFLEtBQUksb0JBQUksS0FBQSxHQUFPLFlBQVc7TUFBSTtNQUFPLEtBQUs7SUFBTztBQUMxRSxRQUFJLFVBQVcsS0FBSSxXQUFXO0FBQzlCLGVBQVcsQ0FBQyxLQUFLLEtBQUEsS0FBVSxPQUFPLFFBQVEsS0FBQSxHQUFRO0FBQ2hELFVBQUksVUFBVSxPQUFXO0FBQ3pCLFVBQUksU0FBUyxJQUFJLEdBQUEsSUFBTyxJQUFJLEdBQUEsS0FBUSxHQUFBLElBQU8saUJBQWlCLFFBQ3hELFVBQVUsS0FBQSxJQUNWLFNBQVMsS0FBQTtJQUNmO0FBQ0EsUUFBSSxLQUFLLFNBQVMsRUFBRyxLQUFJLE9BQU8sS0FBSyxJQUFJLENBQUMsTUFBTSxTQUFTLENBQUEsQ0FBQTtBQUN6RCxRQUFJLEtBQUssS0FBQSxLQUFVLEtBQUssUUFBUSxVQUFVO0FBQ3hDLFlBQU0sT0FBTyxRQUFRLFNBQVE7QUFDN0IsVUFBSSxLQUFNLEtBQUksU0FBUztJQUN6QjtBQUNBLFlBQVEsTUFBTSxHQUFBO0VBQ2hCO0FBQ0EsUUFBTSxNQUFPLENBQUMsUUFBaUIsU0FBb0IsT0FBTyxRQUFRLEtBQUssSUFBQTtBQUN2RSxhQUFXLFNBQVMsUUFBUTtBQUMxQixXQUFPLGVBQWUsS0FBSyxPQUFPO01BQ2hDLE9BQU8sQ0FBQyxRQUFpQixTQUFvQixPQUFPLE9BQU8sS0FBSyxJQUFBO01BQ2hFLFlBQVk7SUFDZCxDQUFBO0VBQ0Y7QUFDQSxTQUFPLGVBQWUsS0FBSyxRQUFRO0lBQ2pDLE9BQU8sQ0FBQyxVQUFtQyxhQUFhLFNBQVM7TUFBRSxHQUFHO01BQU8sR0FBRztJQUFNLENBQUE7RUFDeEYsQ0FBQTtBQUNBLFNBQU8sZUFBZSxLQUFLLFNBQVM7SUFBRSxPQUFPLFFBQVE7SUFBTyxZQUFZO0VBQUssQ0FBQTtBQUM3RSxTQUFPO0FBQ1Q7OztBQ2xIQSxJQUFNLFFBQVE7QUFHUCxTQUFTLE9BQU8sTUFBWTtBQUNqQyxNQUFJLENBQUMsS0FBSyxXQUFXLFNBQUEsRUFBWSxRQUFPO0FBQ3hDLE1BQUk7QUFDRixXQUFPLG1CQUFtQixJQUFJLElBQUksSUFBQSxFQUFNLFFBQVE7RUFDbEQsUUFBUTtBQUNOLFdBQU87RUFDVDtBQUNGO0FBRUEsU0FBUyxXQUFXLE1BQWMsS0FBbUI7QUFDbkQsU0FBTyxpRUFBaUUsS0FBSyxJQUFBLEtBQzNFLEtBQUssV0FBVyxJQUFJLFlBQVksU0FBUyxHQUFBLElBQU8sSUFBSSxjQUFjLElBQUksY0FBYyxHQUFBO0FBQ3hGO0FBRUEsU0FBUyxPQUFPLE9BQWE7QUFDM0IsUUFBTSxNQUFlLENBQUE7QUFDckIsYUFBVyxRQUFRLE1BQU0sTUFBTSxJQUFBLEdBQU87QUFDcEMsVUFBTSxJQUFJLE1BQU0sS0FBSyxJQUFBO0FBQ3JCLFFBQUksRUFBRyxLQUFJLEtBQUs7TUFBRTtNQUFNLE1BQU0sT0FBTyxFQUFFLENBQUEsQ0FBRTtNQUFHLFFBQVEsT0FBTyxFQUFFLENBQUEsQ0FBRTtNQUFHLEtBQUssT0FBTyxFQUFFLENBQUEsQ0FBRTtJQUFFLENBQUE7RUFDdEY7QUFDQSxTQUFPO0FBQ1Q7QUFHTyxTQUFTLGFBQWEsT0FBZSxLQUFtQjtBQUM3RCxRQUFNLE1BQU0sT0FBTyxLQUFBLEVBQU8sT0FBTyxDQUFDLE1BQU0sQ0FBQyxXQUFXLEVBQUUsTUFBTSxHQUFBLENBQUE7QUFDNUQsUUFBTSxPQUFPLElBQUksS0FBSyxDQUFDLE1BQU0sRUFBRSxTQUFTLElBQUksTUFBTSxLQUFLLElBQUksQ0FBQTtBQUMzRCxTQUFPLE9BQU87SUFBRSxNQUFNLEtBQUs7SUFBTSxNQUFNLEtBQUs7SUFBUSxLQUFLLEtBQUs7RUFBSSxJQUFJO0FBQ3hFO0FBR08sU0FBUyxXQUFXLE9BQWUsS0FBbUI7QUFDM0QsU0FBTyxNQUFNLE1BQU0sSUFBQSxFQUFNLE9BQU8sQ0FBQyxTQUFBO0FBQy9CLFVBQU0sSUFBSSxNQUFNLEtBQUssSUFBQTtBQUNyQixXQUFPLENBQUMsS0FBSyxDQUFDLFdBQVcsT0FBTyxFQUFFLENBQUEsQ0FBRSxHQUFHLEdBQUE7RUFDekMsQ0FBQSxFQUFHLEtBQUssSUFBQTtBQUNWO0FBRUEsU0FBUyxVQUFVLE1BQWMsU0FBZTtBQUM5QyxRQUFNLElBQUksNkNBQTZDLEtBQUssT0FBQTtBQUM1RCxTQUFPLElBQUk7SUFBRSxNQUFNLEVBQUUsQ0FBQTtJQUFJLFNBQVMsRUFBRSxDQUFBO0VBQUcsSUFBSTtJQUFFO0lBQU07RUFBUTtBQUM3RDtBQUdBLFNBQVMsZUFBZSxPQUFnQyxTQUFlO0FBQ3JFLFFBQU0sTUFBTSxNQUFNO0FBQ2xCLE1BQUksT0FBTyxPQUFPLElBQUksU0FBUyxZQUFZLE9BQU8sSUFBSSxTQUFTLFVBQVU7QUFDdkUsV0FBTztNQUFFLE1BQU0sT0FBTyxJQUFJLElBQUk7TUFBRyxNQUFNLElBQUk7TUFBTSxLQUFLLElBQUk7SUFBTztFQUNuRTtBQUVBLFFBQU0sT0FBTyxpQ0FBaUMsS0FBSyxPQUFBO0FBQ25ELE1BQUksS0FBTSxRQUFPO0lBQUUsTUFBTSxPQUFPLEtBQUssQ0FBQSxDQUFFO0lBQUcsTUFBTSxPQUFPLEtBQUssQ0FBQSxDQUFFO0lBQUcsS0FBSyxPQUFPLEtBQUssQ0FBQSxDQUFFO0VBQUU7QUFFdEYsUUFBTSxRQUFRLE9BQU8sTUFBTSxVQUFVLFdBQVcsTUFBTSxRQUFRO0FBQzlELFFBQU0sT0FBTyxvQ0FBb0MsS0FBSyxLQUFBO0FBQ3RELE1BQUksS0FBTSxRQUFPO0lBQUUsTUFBTSxPQUFPLEtBQUssQ0FBQSxDQUFFO0lBQUcsTUFBTSxPQUFPLEtBQUssQ0FBQSxDQUFFO0lBQUcsS0FBSyxLQUFLLENBQUEsRUFBRyxTQUFTO0VBQUU7QUFDekYsU0FBTztBQUNUO0FBTU8sU0FBUyxnQkFDZCxPQUNBLEtBQ0EsWUFBWSxPQUFLO0FBRWpCLE1BQUksRUFBRSxpQkFBaUIsU0FBUztBQUM5QixXQUFPO01BQUUsTUFBTTtNQUFZLE1BQU07TUFBWSxTQUFTLGVBQWUsS0FBQTtJQUFPO0VBQzlFO0FBQ0EsUUFBTSxJQUFJO0FBQ1YsUUFBTSxVQUFVLE9BQU8sRUFBRSxTQUFTLFdBQVcsRUFBRSxPQUFPO0FBQ3RELFFBQU0sYUFBYSxPQUFPLEVBQUUsWUFBWSxXQUFXLEVBQUUsVUFBVSxPQUFPLEtBQUE7QUFDdEUsTUFBSSxFQUFFLE1BQU0sUUFBTyxJQUFLLFVBQVUsU0FBUyxVQUFBO0FBQzNDLFFBQU0sUUFBUSxPQUFPLEVBQUUsVUFBVSxXQUFXLEVBQUUsUUFBUTtBQUN0RCxNQUFJLFdBQVc7QUFDYixVQUFNLFNBQVMsU0FBUyxpQkFBaUIsWUFBWTtBQUNyRCxVQUFNLFVBQVUsWUFBWSxvQkFBb0IsRUFBRSxTQUFTLDBCQUN6RCxzQkFBc0IsS0FBSyxPQUFBO0FBQzdCLFFBQUksVUFBVSxTQUFTO0FBQ3JCLFlBQU1BLFlBQVcsZUFBZSxHQUFHLFVBQUEsS0FBZSxhQUFhLE9BQU8sR0FBQTtBQUN0RSxhQUFPO1FBQ0wsTUFBTSxTQUFTLFdBQVc7UUFDMUIsTUFBTSxTQUFTLGdCQUFnQjtRQUMvQixTQUFTLFFBQVEsTUFBTSxJQUFBLEVBQU0sQ0FBQSxFQUFHLEtBQUk7UUFDcEMsR0FBSUEsWUFBVztVQUFFLFVBQUFBO1FBQVMsSUFBSSxDQUFDO01BQ2pDO0lBQ0Y7RUFDRjtBQUNBLE1BQUksWUFBWSxlQUFnQixRQUFPO0FBQ3ZDLFFBQU0sV0FBVyxhQUFhLE9BQU8sR0FBQTtBQUNyQyxTQUFPO0lBQ0wsTUFBTTtJQUNOO0lBQ0E7SUFDQSxHQUFJLFdBQVc7TUFBRTtJQUFTLElBQUksQ0FBQztJQUMvQixHQUFJLFFBQVE7TUFBRSxPQUFPLFdBQVcsT0FBTyxHQUFBO0lBQUssSUFBSSxDQUFDO0VBQ25EO0FBQ0Y7QUFFQSxTQUFTLGVBQWUsT0FBYztBQUNwQyxNQUFJO0FBQ0YsV0FBTyxTQUFTLE9BQU8sVUFBVSxXQUFXLEtBQUssVUFBVSxLQUFBLElBQVMsT0FBTyxLQUFBLENBQUE7RUFDN0UsUUFBUTtBQUNOLFdBQU87RUFDVDtBQUNGOzs7QUN6SE8sSUFBTSxjQUFjO0FBR3BCLElBQU0sa0JBQWtCO0FBR3hCLElBQU0sY0FBYztBQUVwQixJQUFNLGFBQWE7OztBQ3dCMUIsSUFBTUMsUUFBOEI7RUFBRSxPQUFPO0VBQUcsTUFBTTtFQUFHLE1BQU07RUFBRyxPQUFPO0FBQUU7QUFHcEUsU0FBUyxRQUFRLE1BQVk7QUFDbEMsU0FBTyxZQUFZLEtBQUssTUFBTSxHQUFBLEVBQUssSUFBSSxrQkFBQSxFQUFvQixLQUFLLEdBQUE7QUFDbEU7QUFFQSxTQUFTLFFBQVEsUUFBaUMsTUFBYyxPQUFjO0FBQzVFLFNBQU8sZUFBZSxRQUFRLE1BQU07SUFDbEM7SUFDQSxVQUFVO0lBQ1YsY0FBYztJQUNkLFlBQVk7RUFDZCxDQUFBO0FBQ0Y7QUFFQSxTQUFTLE1BQStDLE1BQWMsSUFBSztBQUN6RSxTQUFPLGVBQWUsSUFBSSxRQUFRO0lBQUUsT0FBTztFQUFLLENBQUE7QUFDaEQsU0FBTztBQUNUO0FBT0EsU0FBUyxlQUFlLE1BQVksUUFBZ0MsS0FBVztBQUM3RSxRQUFNLElBQUk7QUFDVixRQUFNLFdBQVcsQ0FBQyxPQUFjLFNBQVMsT0FBTyxJQUFJLFNBQUE7QUFDbEQsUUFBSUEsTUFBSyxLQUFBLElBQVMsSUFBSztBQUN2QixXQUFPO01BQ0wsS0FBSSxvQkFBSSxLQUFBLEdBQU8sWUFBVztNQUMxQjtNQUNBLEtBQUssU0FBUyxXQUFXLE1BQU0sS0FBSyxPQUFPO01BQzNDLEdBQUksS0FBSyxTQUFTLElBQUk7UUFBRSxNQUFNLEtBQUssSUFBSSxDQUFDLE1BQU0sU0FBUyxDQUFBLENBQUE7TUFBSSxJQUFJLENBQUM7TUFDaEUsU0FBUztJQUNYLENBQUE7RUFDRjtBQUNBLGFBQVcsU0FBUztJQUFDO0lBQVM7SUFBUTtJQUFRO0tBQW1CO0FBQy9ELE1BQUUsS0FBQSxJQUFTLE1BQU0sT0FBTyxTQUFTLEtBQUEsQ0FBQTtFQUNuQztBQUNBLFFBQU0sUUFBUSxTQUFTLFNBQVMsU0FBQTtBQUNoQyxJQUFFLFFBQVEsTUFBTSxTQUFTLElBQUksU0FBQTtBQUMzQixVQUFNLFNBQVMsSUFBSSxNQUFBLEVBQVEsU0FBUyxJQUFJLE1BQU0sSUFBQSxFQUFNLE1BQU0sQ0FBQSxFQUFHLEtBQUssSUFBQTtBQUNsRSxVQUFBLEdBQVMsTUFBQSxHQUFVLFFBQVE7TUFBQyxPQUFPO1FBQVMsQ0FBQSxDQUFFO0VBQ2hELENBQUE7QUFDQSxRQUFNLFNBQVMsU0FBUyxTQUFTLGtCQUFBO0FBQ2pDLElBQUUsU0FBUyxNQUFNLFVBQVUsQ0FBQyxjQUF3QixTQUFBO0FBQ2xELFFBQUksQ0FBQyxVQUFXLFFBQUEsR0FBVyxLQUFLLFNBQVM7TUFBQztTQUFRO1FBQVEsQ0FBQSxDQUFFO0VBQzlELENBQUE7QUFDQSxNQUFJLENBQUMsS0FBSyxhQUFjO0FBQ3hCLE1BQUksU0FBUztBQUNiLFFBQU0sUUFBUSxDQUFDLFNBQ2IsS0FBSyxLQUFLLFNBQVMsS0FBSyxNQUFNLElBQUEsRUFBTSxJQUFJLENBQUMsTUFBTSxTQUFTLENBQUEsRUFBRyxLQUFLLElBQUEsSUFBUSxRQUFRLElBQUE7QUFDbEYsUUFBTSxNQUFNLElBQUksU0FBb0IsTUFBTSxXQUFXLE1BQU0sS0FBSyxPQUFPLENBQUE7QUFDdkUsSUFBRSxNQUFNLE1BQU0sT0FBTyxHQUFBO0FBQ3JCLElBQUUsTUFBTSxNQUFNLE9BQU8sQ0FBQyxVQUFtQixNQUFNLEtBQUssUUFBUSxLQUFBLENBQUEsQ0FBQTtBQUM1RCxJQUFFLFNBQVMsTUFBTSxVQUFVLEdBQUE7QUFDM0IsSUFBRSxRQUFRLE1BQU0sU0FBUyxDQUFDLFNBQWtCLE1BQU0sS0FBSyxRQUFRLElBQUEsQ0FBQSxDQUFBO0FBQy9ELElBQUUsUUFBUSxNQUFNLFNBQVMsSUFBSSxTQUFBO0FBQzNCLFFBQUksS0FBSyxPQUFRLEtBQUEsR0FBTyxJQUFBO0FBQ3hCLGNBQVU7RUFDWixDQUFBO0FBQ0EsSUFBRSxpQkFBaUIsTUFBTSxrQkFBa0IsRUFBRSxLQUFLO0FBQ2xELElBQUUsV0FBVyxNQUFNLFlBQVksTUFBTSxNQUFNLFNBQVMsT0FBTyxNQUFNLENBQUEsRUFBRTtBQUNuRSxRQUFNLFNBQVMsb0JBQUksSUFBQTtBQUNuQixJQUFFLFFBQVEsTUFBTSxTQUFTLENBQUMsUUFBUSxjQUFTO0FBQ3pDLFVBQU0sS0FBSyxPQUFPLElBQUksS0FBQSxLQUFVLEtBQUs7QUFDckMsV0FBTyxJQUFJLE9BQU8sQ0FBQTtBQUNsQixVQUFNLEdBQUcsS0FBQSxLQUFVLENBQUEsRUFBRztFQUN4QixDQUFBO0FBQ0EsSUFBRSxhQUFhLE1BQU0sY0FBYyxDQUFDLFFBQVEsY0FBYyxLQUFLLE9BQU8sT0FBTyxLQUFBLENBQUE7QUFDN0UsUUFBTSxTQUFTLG9CQUFJLElBQUE7QUFDbkIsUUFBTSxVQUFVLENBQUMsVUFDZixHQUFHLEtBQUEsTUFBVyxZQUFZLElBQUcsSUFBSyxPQUFPLElBQUksS0FBQSxHQUFTLFFBQVEsQ0FBQSxDQUFBO0FBQ2hFLElBQUUsT0FBTyxNQUFNLFFBQVEsQ0FBQyxRQUFRLGNBQWMsS0FBSyxPQUFPLElBQUksT0FBTyxZQUFZLElBQUcsQ0FBQSxDQUFBO0FBQ3BGLElBQUUsVUFBVSxNQUFNLFdBQVcsQ0FBQyxRQUFRLGNBQWMsU0FBQTtBQUNsRCxRQUFJLE9BQU8sSUFBSSxLQUFBLEVBQVEsS0FBSSxRQUFRLEtBQUEsR0FBQSxHQUFXLElBQUE7RUFDaEQsQ0FBQTtBQUNBLElBQUUsVUFBVSxNQUFNLFdBQVcsQ0FBQyxRQUFRLGNBQVM7QUFDN0MsUUFBSSxDQUFDLE9BQU8sSUFBSSxLQUFBLEVBQVE7QUFDeEIsVUFBTSxRQUFRLEtBQUEsQ0FBQTtBQUNkLFdBQU8sT0FBTyxLQUFBO0VBQ2hCLENBQUE7QUFDRjtBQUVBLFNBQVMsYUFBYSxPQUFjO0FBQ2xDLFFBQU0sSUFBSSxNQUFNLEtBQUE7QUFDaEIsTUFBSSxPQUFPLE1BQU0sU0FBVSxRQUFPLEVBQUUsU0FBUyxJQUFBLElBQVEsSUFBSSxJQUFJO0FBQzdELFNBQU8sS0FBSyxVQUFVLEdBQUcsTUFBTSxDQUFBLElBQUs7QUFDdEM7QUFFQSxTQUFTLFVBQVUsS0FBNEI7QUFDN0MsU0FBTyxPQUFPLEtBQUssR0FBQSxFQUFLLE9BQU8sQ0FBQyxNQUFNLE9BQU8sSUFBSSxDQUFBLE1BQU8sVUFBQSxFQUFZLEtBQUk7QUFDMUU7QUFHQSxlQUFzQixPQUFPLE1BQVksS0FBaUI7QUFDeEQsUUFBTSxPQUF1QjtJQUMzQixRQUFRLElBQUk7SUFDWixhQUFhLElBQUk7SUFDakIsR0FBSSxJQUFJLFNBQVM7TUFBRSxRQUFRLElBQUk7SUFBTyxJQUFJLENBQUM7RUFDN0M7QUFDQSxNQUFJLFdBQVc7QUFDZixRQUFNLFFBQVEsQ0FBQyxTQUFrQixLQUFLLElBQUksY0FBYyxLQUFLLFVBQVUsSUFBQSxJQUFRLElBQUE7QUFDL0UsUUFBTSxVQUFVLENBQUMsTUFBcUIsTUFBTSxDQUFBO0FBQzVDLFFBQU0sU0FBUyxDQUFDLFNBQUE7QUFDZCxRQUFJLFNBQVU7QUFDZCxlQUFXO0FBQ1gsU0FBSyxLQUFLLElBQUE7RUFDWjtBQUNBLFFBQU0sT0FBTyxDQUFDLFNBQXdCLE9BQU8sZ0JBQVc7QUFDdEQsUUFBSSxTQUFVO0FBQ2QsWUFBUTtNQUFFLE1BQU07TUFBUztJQUFRLENBQUE7QUFDakMsV0FBTyxJQUFBO0VBQ1Q7QUFFQSxNQUFJLElBQUksSUFBSyxNQUFLLE9BQU8sSUFBSSxHQUFHO0FBQ2hDLE9BQUssUUFBUSxJQUFJLE1BQU0sSUFBSSxNQUFNO0FBRWpDLE1BQUksYUFBc0MsQ0FBQztBQUMzQyxRQUFNLFVBQVUsQ0FBQyxZQUFBO0FBQ2YsUUFBSSxRQUFRLFNBQVMsY0FBYyxDQUFDLElBQUksT0FBUSxRQUFPO0FBQ3ZELFVBQU0sUUFBUSxPQUFPLEtBQUssVUFBQTtBQUMxQixVQUFNLGdCQUFnQix3QkFBd0IsS0FBSyxRQUFRLE9BQU8sSUFBSSxDQUFBO0FBQ3RFLFFBQUksaUJBQWlCLENBQUMsTUFBTSxTQUFTLGFBQUEsR0FBZ0I7QUFDbkQsYUFBTztRQUNMLEdBQUc7UUFDSCxNQUFNLGlCQUFpQixhQUFBLHlCQUNyQixNQUFNLEtBQUssSUFBQSxLQUFTLFFBQUE7TUFFeEI7SUFDRjtBQUNBLFVBQU0sT0FBTyxrQ0FBa0MsS0FBSyxRQUFRLE9BQU87QUFDbkUsVUFBTSxLQUFLLFFBQVEsTUFBTSxTQUFTLEtBQUssQ0FBQSxDQUFFLElBQ3JDLFdBQVcsS0FBSyxDQUFBLENBQUUsSUFDbEI7QUFDSixRQUFJLFFBQVEsSUFBSTtBQUNkLFlBQU0sUUFBUSxPQUFPLEtBQUssRUFBQTtBQUMxQixhQUFPO1FBQ0wsR0FBRztRQUNILE1BQU0sTUFBTSxTQUNSLEdBQUcsS0FBSyxDQUFBLENBQUUsaUJBQWlCLEtBQUssQ0FBQSxDQUFFLG9CQUFvQixNQUFNLEtBQUssSUFBQSxDQUFBLGtCQUNqRSxLQUFLLENBQUEsQ0FBRSxRQUVQLCtCQUNBLEtBQUssQ0FBQSxDQUFFO01BRWI7SUFDRjtBQUNBLFdBQU87RUFDVDtBQUNBLE9BQUssV0FBVyxDQUFDLFVBQVUsS0FBSyxRQUFRLGdCQUFnQixPQUFPLElBQUEsQ0FBQSxDQUFBLENBQUE7QUFFL0QsUUFBTUMsS0FBSTtBQUNWLFFBQU0sV0FBVyxNQUFBO0FBQ2YsVUFBTSxLQUFLLGFBQWEsSUFBSSxNQUFBLEVBQVEsU0FBUyxJQUFJLElBQUE7QUFDakQsV0FBTyxLQUFLLEdBQUcsR0FBRyxJQUFJLElBQUksR0FBRyxJQUFJLEdBQUcsR0FBRyxNQUFNLElBQUksR0FBRyxHQUFHLEtBQUssRUFBQSxLQUFPO0VBQ3JFO0FBQ0EsUUFBTSxNQUFjLGFBQWE7SUFDL0I7SUFDQSxPQUFPLElBQUk7SUFDWCxTQUFTLEtBQUs7SUFDZDtFQUNGLENBQUE7QUFDQSxRQUFNLE9BQU8sTUFBTSxRQUFRLENBQUMsVUFBQTtBQUMxQixVQUFNLFVBQVUsWUFBWSxPQUFPLFdBQUE7QUFDbkMsUUFBSSxRQUFTLE9BQU0sSUFBSSxVQUFVLDZCQUE2QixPQUFBLEVBQVM7QUFDdkUsUUFBSSxJQUFJLEtBQU0sU0FBUTtNQUFFLE1BQU07TUFBUSxPQUFPLE1BQU0sS0FBQTtJQUFPLENBQUE7UUFDckQsTUFBSyxJQUFJLEtBQUssVUFBVSxNQUFNLEtBQUEsQ0FBQSxJQUFVLElBQUE7RUFDL0MsQ0FBQTtBQUNBLFVBQVFBLElBQUcsT0FBTyxHQUFBO0FBQ2xCLFVBQVFBLElBQUcsUUFBUSxJQUFBO0FBQ25CLFVBQVFBLElBQUcsUUFBUTtPQUFJLElBQUk7R0FBSztBQUNoQyxpQkFBZSxNQUFNLE9BQU9ELE1BQUssSUFBSSxRQUFRLEtBQUssQ0FBQTtBQUVsRCxNQUFJLElBQUksUUFBUTtBQUNkLFFBQUk7QUFDSixRQUFJO0FBQ0YsZUFBUyxNQUFNLE9BQU8sUUFBUSxJQUFJLE1BQU07SUFDMUMsU0FBUyxPQUFPO0FBQ2QsYUFBTyxLQUFLLGdCQUFnQixPQUFPLE1BQU0sSUFBQSxDQUFBO0lBQzNDO0FBQ0EsaUJBQWMsT0FBTyxXQUFXLENBQUM7QUFDakMsVUFBTSxVQUFXLE9BQU8saUJBQWlCLENBQUM7QUFFMUMsZUFBVyxDQUFDLE1BQU0sS0FBQSxLQUFVLE9BQU8sUUFBUSxPQUFBLEVBQVUsS0FBSSxFQUFFLFFBQVFDLElBQUksU0FBUUEsSUFBRyxNQUFNLEtBQUE7RUFDMUY7QUFFQSxNQUFJO0FBQ0osTUFBSTtBQUNGLFVBQU0sTUFBTSxPQUFPLFFBQVEsSUFBSSxNQUFNO0VBQ3ZDLFNBQVMsT0FBTztBQUNkLFdBQU8sS0FBSyxRQUFRLGdCQUFnQixPQUFPLE1BQU0sSUFBQSxDQUFBLENBQUE7RUFDbkQ7QUFDQSxNQUFJLFNBQVU7QUFFZCxNQUFJO0FBQ0osTUFBSSxPQUFPO0FBQ1gsTUFBSTtBQUNGLFFBQUksSUFBSSxXQUFXLFFBQVc7QUFDNUIsYUFBTyxXQUFXLElBQUksTUFBTTtBQUM1QixZQUFNLEtBQUssSUFBSSxJQUFJLE1BQU07QUFDekIsVUFBSSxPQUFPLE9BQU8sWUFBWTtBQUM1QixjQUFNLFVBQVUsVUFBVSxHQUFBO0FBQzFCLGVBQU8sS0FBSztVQUNWLE1BQU07VUFDTixNQUFNO1VBQ04sU0FBUyxHQUNQLE9BQU8sU0FBWSxnQkFBZ0IsaUJBQUEsWUFDekIsSUFBSSxNQUFNLE1BQ3BCLFFBQVEsU0FDSiw2QkFBNkIsUUFBUSxLQUFLLElBQUEsQ0FBQSxLQUMxQyx5QkFBQTtVQUVOO1FBQ0YsR0FBRyxVQUFBO01BQ0w7QUFDQSxlQUFTLE1BQU0sR0FBQSxHQUFNLElBQUksSUFBSTtJQUMvQixXQUFXLE9BQU8sSUFBSSxZQUFZLFlBQVk7QUFDNUMsZUFBUyxNQUFNLElBQUksUUFBUTtXQUFJLElBQUk7T0FBSztJQUMxQztFQUNGLFNBQVMsT0FBTztBQUNkLFdBQU8sS0FBSyxRQUFRLGdCQUFnQixPQUFPLElBQUEsQ0FBQSxDQUFBO0VBQzdDO0FBQ0EsTUFBSSxTQUFVO0FBQ2QsTUFBSSxXQUFXLFFBQVc7QUFDeEIsVUFBTSxVQUFVLFlBQVksUUFBUSxZQUFBO0FBQ3BDLFFBQUksU0FBUztBQUNYLGFBQU8sS0FBSztRQUNWLE1BQU07UUFDTixNQUFNO1FBQ04sU0FBUyxHQUFHLEtBQUssQ0FBQSxFQUFHLFlBQVcsQ0FBQSxHQUM3QixLQUFLLE1BQU0sQ0FBQSxDQUFBLHVDQUMwQixPQUFBO01BQ3pDLENBQUE7SUFDRjtBQUNBLFFBQUksSUFBSSxLQUFNLFNBQVE7TUFBRSxNQUFNO01BQVUsT0FBTyxNQUFNLE1BQUE7SUFBUSxDQUFBO1FBQ3hELE1BQUssSUFBSSxhQUFhLE1BQUEsQ0FBQTtFQUM3QjtBQUNBLFNBQU8sS0FBSyxTQUFRLENBQUE7QUFDdEI7OztBQ2pSQSxJQUFNLElBQUk7QUFFVixTQUFTLFdBQUE7QUFDUCxRQUFNLFVBQVUsSUFBSSxZQUFBO0FBQ3BCLFFBQU0sV0FBVyxDQUFDLE1BQTRDLFNBQUE7QUFDNUQsUUFBSSxRQUFRLFFBQVEsT0FBTyxJQUFBO0FBQzNCLFdBQU8sTUFBTSxTQUFTLEVBQUcsU0FBUSxNQUFNLFNBQVMsS0FBSyxVQUFVLEtBQUEsQ0FBQTtFQUNqRTtBQUNBLFNBQU87SUFDTCxLQUFLLENBQUMsU0FBUyxTQUFTLEVBQUUsS0FBSyxRQUFRLElBQUE7SUFDdkMsS0FBSyxDQUFDLFNBQVMsU0FBUyxFQUFFLEtBQUssUUFBUSxJQUFBO0lBQ3ZDLE1BQU0sQ0FBQyxTQUFTLEVBQUUsS0FBSyxLQUFLLElBQUE7SUFDNUIsU0FBUyxDQUFDLFVBQVUsRUFBRSxLQUFLLFFBQVEsT0FBTztNQUFFLFFBQVE7SUFBTSxDQUFBO0lBQzFELFVBQUE7SUFBVztJQUNYLE9BQU8sS0FBRztBQUNSLGlCQUFXLENBQUMsS0FBSyxLQUFBLEtBQVUsT0FBTyxRQUFRLEdBQUEsRUFBTSxHQUFFLEtBQUssSUFBSSxJQUFJLEtBQUssS0FBQTtJQUN0RTtJQUNBLFdBQVcsU0FBTztBQUNoQixRQUFFLGlCQUFpQixTQUFTLENBQUMsVUFBQTtBQUMzQixjQUFNLGVBQWM7QUFDcEIsZ0JBQVEsTUFBTSxTQUFTLElBQUksTUFBTSxNQUFNLE9BQU8sQ0FBQTtNQUNoRCxDQUFBO0FBQ0EsUUFBRSxpQkFBaUIsc0JBQXNCLENBQUMsVUFBQTtBQUN4QyxjQUFNLGVBQWM7QUFDcEIsZ0JBQVEsTUFBTSxNQUFNO01BQ3RCLENBQUE7SUFDRjtJQUNBLFVBQVUsTUFBTSxPQUFPLEVBQUUsS0FBSyxRQUFRLEtBQUs7SUFDM0MsY0FBYztFQUNoQjtBQUNGO0FBRUEsU0FBUyxXQUFBO0FBQ1AsUUFBTSxVQUFVLEVBQUU7QUFDbEIsUUFBTSxPQUFPLFFBQVEsbUJBQW1CLFdBQUE7QUFDeEMsUUFBTSxVQUFVLEVBQUUsTUFDZCxDQUFDLFVBQW1CLEVBQUUsSUFBSSxRQUFRLEtBQUEsSUFDbEMsT0FDQSxDQUFDLFVBQW1CLEtBQUssUUFBUSxPQUFPO0lBQUUsUUFBUTtFQUFNLENBQUEsSUFDeEQsQ0FBQyxVQUFtQixPQUFPLEtBQUE7QUFDL0IsU0FBTztJQUNMLEtBQUssQ0FBQyxTQUFTLEtBQUssUUFBUSxPQUFPLE1BQU0sSUFBQTtJQUN6QyxLQUFLLENBQUMsU0FBUyxLQUFLLFFBQVEsT0FBTyxNQUFNLElBQUE7SUFDekMsS0FBSyxNQUFJO0FBQ1AsY0FBUSxXQUFXO0FBRW5CLGNBQVEsT0FBTyxNQUFNLElBQUksTUFBTSxRQUFRLE9BQU8sTUFBTSxJQUFJLE1BQU0sUUFBUSxLQUFLLElBQUEsQ0FBQSxDQUFBO0lBQzdFO0lBQ0E7SUFDQSxRQUFRLE1BQU0sUUFBTTtBQUNsQixjQUFRLE9BQU87UUFBQyxRQUFRLEtBQUssQ0FBQTtRQUFJO1dBQVc7O0lBQzlDO0lBQ0EsT0FBTyxLQUFHO0FBQ1IsYUFBTyxPQUFPLFFBQVEsS0FBSyxHQUFBO0lBQzdCO0lBQ0EsV0FBVyxTQUFPO0FBQ2hCLGNBQVEsR0FBRyxxQkFBcUIsT0FBQTtBQUNoQyxjQUFRLEdBQUcsc0JBQXNCLE9BQUE7SUFDbkM7SUFDQSxVQUFVLE1BQU0sT0FBTyxRQUFRLFFBQVEsS0FBSztJQUM1QyxjQUFjO0VBQ2hCO0FBQ0Y7QUFFQSxJQUFNLE1BQU0sRUFBRSxPQUFPLEVBQUUsS0FBSyxJQUFJLElBQUksZUFBQSxJQUFtQixFQUFFLFFBQVEsSUFBSSxlQUFBO0FBQ3JFLElBQUksRUFBRSxLQUFNLEdBQUUsS0FBSyxJQUFJLE9BQU8sZUFBQTtJQUN6QixRQUFPLEVBQUUsUUFBUSxJQUFJLGVBQUE7QUFDMUIsSUFBSSxDQUFDLElBQUssT0FBTSxJQUFJLE1BQU0sNkNBQTZDLGVBQUEsTUFBcUI7QUFDNUYsTUFBTSxPQUFPLEVBQUUsT0FBTyxTQUFBLElBQWEsU0FBQSxHQUFZLEtBQUssTUFBTSxHQUFBLENBQUE7IiwKICAibmFtZXMiOiBbImxvY2F0aW9uIiwgIlJBTksiLCAiZyJdCn0K
