// The runtime every generated client module carries (lib/scripts/client_module.ts reads this file
// as text and writes it into the module, its socket and tools in place of the two lines marked
// below). Plain TypeScript with erasable syntax only (no enums, no parameter properties, no
// namespaces with values), so that Deno, Bun and Node's type stripping all run it, and without
// imports, so that it starts in the tens of milliseconds a script allows. Its HTTP answer reader,
// readResponse(), is also the CLI's (lib/daemon/wire.ts). Every top-level name here is listed in
// RUNTIME_NAMES (lib/names.ts): a namespace is declared beside them.

type Json = unknown;

/** The MCP result envelope, as the server sent it: image bytes live here. */
export interface RawResult {
  content?: { type: string; text?: string; data?: string; mimeType?: string }[];
  structuredContent?: Json;
  isError?: boolean;
  [key: string]: Json;
}

/** A tool's answer, unwrapped (structured content or JSON-in-text parsed, text as a string), with `.raw`. */
export type ToolResult<T = unknown> = T & { readonly raw: RawResult };

/** A tool reported an error (`isError`), or the call could not be made. */
export class ToolError extends Error {
  server: string;
  tool: string;
  code: string;
  raw: RawResult | undefined;
  constructor(server: string, tool: string, code: string, message: string, raw?: RawResult) {
    super(message);
    this.name = "ToolError";
    this.server = server;
    this.tool = tool;
    this.code = code;
    this.raw = raw;
  }
}

/** One tool as the client's search() and describe() know it. */
export interface ToolMeta {
  namespace: string;
  tool: string;
  fn: string;
  description: string;
  required: string[];
  signature: string;
}

// The generated client replaces the next four lines with its socket, token file, tools, and
// the ad-hoc servers (`mcpx run --stdio …`) its namespaces stand for, as query text by namespace.
const BAKED_SOCKET: string = "";
const BAKED_TOKEN_FILE: string = "";
const META: ToolMeta[] = [];
const AD_HOC: Record<string, string> = {};

// deno-lint-ignore no-explicit-any
const g = globalThis as any;
// Deno's own API where there is one: under Deno, touching globalThis.process at all loads Node's
// process object, 11 ms of a run's first call (performance.now() around the access, in a script).
const deno = g.Deno;
const env = (key: string): string | undefined => deno ? deno.env.get(key) : g.process?.env?.[key];
const socket = (): string => env("MCPX_SOCKET") ?? BAKED_SOCKET;

// A daemon elsewhere (MCPX_DAEMON_ENDPOINT=http://host:port, as `mcpx run` hands it on): TCP, with
// MCPX_DAEMON_TOKEN as a bearer token, instead of the socket.
function tcpEndpoint(): { hostname: string; port: number; host: string } | undefined {
  const text = env("MCPX_DAEMON_ENDPOINT");
  const m = text ? /^http:\/\/(\[[0-9a-fA-F:.]+\]|[^\s:/\[\]]+):(\d+)\/?$/.exec(text) : null;
  if (!m) return undefined;
  return {
    hostname: m[1].replace(/^\[(.*)\]$/, "$1"),
    port: Number(m[2]),
    host: `${m[1]}:${m[2]}`,
  };
}
const where = (): string => env("MCPX_DAEMON_ENDPOINT") || socket();

// The daemon's token, read at each call (a restarted daemon has a new one); mcpx has checked the
// file is the user's own and private before handing it on. No file: no header, and the daemon
// answers 401.
async function token(): Promise<string | undefined> {
  const path = env("MCPX_TOKEN_FILE") ?? BAKED_TOKEN_FILE;
  if (!path) return undefined;
  try {
    if (deno) return deno.readTextFileSync(path).trim();
    const fs = await import("node:fs");
    return fs.readFileSync(path, "utf8").trim();
  } catch {
    return undefined;
  }
}

function callerHeader(progress?: string): string {
  return encodeURIComponent(JSON.stringify({
    progress,
    cwd: env("MCPX_CALLER_CWD") ?? (deno ? deno.cwd() : g.process?.cwd?.()),
    session: env("MCPX_SESSION_ID") || undefined,
    runId: env("MCPX_RUN_ID") || undefined,
    owner: env("MCPX_SESSION_ID") && Number(env("MCPX_SESSION_OWNER")) > 0
      ? Number(env("MCPX_SESSION_OWNER"))
      : undefined,
    sessionMinted: env("MCPX_SESSION_MINTED") === "1" || undefined,
    parentSession: env("MCPX_PARENT_SESSION_ID") || undefined,
    holder: env("MCPX_SESSION_HOLDER") || undefined,
    pid: deno ? deno.pid : g.process?.pid,
    process: deno ? deno.pid : g.process?.pid,
    run: Number(env("MCPX_RUN_PID")) > 0 ? Number(env("MCPX_RUN_PID")) : undefined,
    env: callerEnv(),
    ids: traceIds(),
    // The run's caller asked for a trace of its calls (MCPX_TRACE, as `mcpx run` hands it on).
    trace: env("MCPX_TRACE") === "1" || undefined,
  }));
}

// The harness's trace ids, as `mcpx run` hands them on: JSON pairs (lib/log/trace_ids.ts).
function traceIds(): Record<string, string | string[]> | undefined {
  const text = env("MCPX_TRACE_IDS");
  if (!text) return undefined;
  try {
    const out: Record<string, string | string[]> = {};
    for (const [key, ...ids] of JSON.parse(text) as string[][]) {
      out[key] = ids.length === 1 ? ids[0] : ids;
    }
    return out;
  } catch {
    return undefined;
  }
}

// What `mcpx run` hands on of its caller's variables for "envFrom": "caller" servers.
function callerEnv(): Record<string, string> | undefined {
  const text = env("MCPX_CALLER_ENV");
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** One HTTP/1.1 answer: status, headers by lower-case name, and the body (de-chunked). */
export interface HttpAnswer {
  status: number;
  headers: Map<string, string>;
  body: Uint8Array;
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const all = new Uint8Array(total);
  let o = 0;
  for (const c of chunks) {
    all.set(c, o);
    o += c.length;
  }
  return all;
}

// Where the blank line after the head starts in `data`, looking from `from`; -1 when not yet.
function headEnd(data: Uint8Array, from: number): number {
  for (let i = Math.max(0, from); i + 3 < data.length; i++) {
    if (data[i] === 13 && data[i + 1] === 10 && data[i + 2] === 13 && data[i + 3] === 10) return i;
  }
  return -1;
}

function decodeChunked(body: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  let total = 0;
  let i = 0;
  while (i < body.length) {
    const eol = body.indexOf(13, i);
    if (eol < 0) break;
    const size = parseInt(new TextDecoder().decode(body.subarray(i, eol)), 16);
    if (!size) break;
    parts.push(body.subarray(eol + 2, eol + 2 + size));
    total += size;
    i = eol + 2 + size + 2;
  }
  return concat(parts, total);
}

/**
 * Reads one HTTP/1.1 answer from a connection that the request was already written to, up to the
 * end of its body (`content-length`), or to the end of the stream (`connection: close`).
 * Undefined when the stream ends before a whole head arrived. Each read is kept as it came and
 * the body joined once: rebuilding one buffer per read made a 20 MB answer take seconds.
 */
export async function readResponse(
  conn: { read(buffer: Uint8Array): Promise<number | null> },
): Promise<HttpAnswer | undefined> {
  let chunks: Uint8Array[] = [];
  let total = 0;
  let split = -1;
  let expected = -1;
  const buffer = new Uint8Array(64 * 1024);
  for (;;) {
    const n = await conn.read(buffer);
    if (n === null) break;
    chunks.push(buffer.slice(0, n));
    const before = total;
    total += n;
    if (split < 0) {
      // The head is short: until it is whole, the reads so far are joined to look for its end.
      const data = concat(chunks, total);
      chunks = [data];
      split = headEnd(data, before - 3);
      if (split >= 0) {
        const m = /\r\ncontent-length:\s*(\d+)/i.exec(
          new TextDecoder().decode(data.subarray(0, split + 2)),
        );
        if (m) expected = split + 4 + Number(m[1]);
      }
    }
    if (expected >= 0 && total >= expected) break;
  }
  if (split < 0) return undefined;
  const all = concat(chunks, total);
  const [statusLine, ...lines] = new TextDecoder().decode(all.subarray(0, split)).split("\r\n");
  const headers = new Map<string, string>();
  for (const line of lines) {
    const c = line.indexOf(":");
    if (c > 0) headers.set(line.slice(0, c).trim().toLowerCase(), line.slice(c + 1).trim());
  }
  let body = all.subarray(split + 4, expected >= 0 ? expected : all.length);
  if (headers.get("transfer-encoding")?.includes("chunked")) body = decodeChunked(body);
  return { status: Number(statusLine.split(" ")[1]), headers, body };
}

// Under Deno: HTTP/1.1 by hand over the unix socket. Its first fetch() costs a run 15-20 ms of
// set-up (performance.now() marks in the CLI: a one-call script took 26-30 ms from start to exit
// inside the Worker, against 7 ms for one that makes no call); Deno.connect costs well under 1 ms.
async function denoPost(
  path: string,
  text: string,
  caller: string,
  key: string | undefined,
  signal?: AbortSignal,
  method = "POST",
): Promise<{ status: number; json: Json }> {
  const tcp = tcpEndpoint();
  const bearer = env("MCPX_DAEMON_TOKEN");
  let conn;
  try {
    conn = tcp
      ? await deno.connect({ hostname: tcp.hostname, port: tcp.port })
      : await deno.connect({ transport: "unix", path: socket() });
  } catch (e) {
    // Nothing was sent: the request may be tried again on a daemon started anew.
    (e as { notSent?: boolean }).notSent = !tcp;
    throw e;
  }
  // Cancelled: the connection closes, and the daemon cancels the call upstream with it.
  const onAbort = () => {
    try {
      conn.close();
    } catch { /* already closed */ }
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const body = new TextEncoder().encode(text);
    const head = new TextEncoder().encode(
      `${method} ${path} HTTP/1.1\r\nhost: ${tcp ? tcp.host : "mcpx"}\r\nconnection: close\r\n` +
        `content-type: application/json\r\nx-mcpx-caller: ${caller}\r\n` +
        (tcp
          ? (bearer ? `authorization: Bearer ${bearer}\r\n` : "")
          : key === undefined
          ? ""
          : `x-mcpx-token: ${key}\r\n`) +
        `content-length: ${body.length}\r\n\r\n`,
    );
    const request = new Uint8Array(head.length + body.length);
    request.set(head);
    request.set(body, head.length);
    for (let sent = 0; sent < request.length;) sent += await conn.write(request.subarray(sent));
    const answer = await readResponse(conn);
    if (!answer) throw new Error("the daemon closed the connection before answering");
    return { status: answer.status, json: JSON.parse(new TextDecoder().decode(answer.body)) };
  } finally {
    signal?.removeEventListener("abort", onAbort);
    try {
      conn.close();
    } catch { /* already closed */ }
  }
}

/**
 * Under Deno: subscribes to the daemon's events (`GET /v1/events`, live) and hands each
 * `call.progress` event carrying `progress` (the token) to `each`; resolves once subscribed, to
 * the function that ends the subscription.
 */
async function denoProgress(
  progress: string,
  key: string | undefined,
  each: (p: { progress: number; total?: number; message?: string }) => void,
): Promise<() => void> {
  // A copy of lib/events/sse.ts's two readers, since this module imports nothing
  // (lib/events/sse_test.ts holds the copy to them): nested, so no namespace loses their names.
  function sseLines(each: (data: string) => void): (piece: string) => void {
    let text = "";
    return (piece) => {
      text += piece;
      let at: number;
      while ((at = text.indexOf("\n")) >= 0) {
        const line = text.slice(0, at);
        text = text.slice(at + 1);
        if (line.startsWith("data: ")) each(line.slice(6));
      }
    };
  }
  async function readSse(
    conn: { read(into: Uint8Array): Promise<number | null> },
    each: (data: string) => void,
  ): Promise<{ reading: Promise<void> } | undefined> {
    const decoder = new TextDecoder();
    const buf = new Uint8Array(65536);
    let text = "";
    while (!text.includes("\r\n\r\n")) {
      const n = await conn.read(buf);
      if (n === null) return undefined;
      text += decoder.decode(buf.subarray(0, n), { stream: true });
    }
    const push = sseLines(each);
    const reading = (async () => {
      try {
        push(text);
        for (;;) {
          const n = await conn.read(buf);
          if (n === null) return;
          push(decoder.decode(buf.subarray(0, n), { stream: true }));
        }
      } catch { /* closed */ }
    })();
    return { reading };
  }

  const conn = await deno.connect({ transport: "unix", path: socket() });
  const head = `GET /v1/events HTTP/1.1\r\nhost: mcpx\r\nconnection: close\r\n` +
    (key === undefined ? "" : `x-mcpx-token: ${key}\r\n`) + "\r\n";
  await conn.write(new TextEncoder().encode(head));
  const stop = () => {
    try {
      conn.close();
    } catch { /* already closed */ }
  };
  // The answer's head (and the opening comment) arrive once the daemon has subscribed.
  await readSse(conn, (data) => {
    if (!data.includes(progress)) return;
    const event = JSON.parse(data);
    if (event?.type === "call.progress" && event.data?.token === progress) {
      const { progress: p, total, message } = event.data;
      try {
        each({ progress: p, total, message });
      } catch { /* the script's handler failed: not the call's failure */ }
    }
  });
  return stop;
}

async function nodePost(
  path: string,
  text: string,
  caller: string,
  key: string | undefined,
  signal?: AbortSignal,
  method = "POST",
): Promise<{ status: number; json: Json }> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-mcpx-caller": caller,
    connection: "close",
  };
  const tcp = tcpEndpoint();
  const bearer = env("MCPX_DAEMON_TOKEN");
  if (tcp && bearer) headers.authorization = `Bearer ${bearer}`;
  else if (!tcp && key !== undefined) headers["x-mcpx-token"] = key;
  const http = await import("node:http");
  return await new Promise((resolve, reject) => {
    const options = tcp
      ? { host: tcp.hostname, port: tcp.port, path, method, headers, signal }
      : { socketPath: socket(), path, method, headers, signal };
    const req = http.request(options, (res) => {
      const chunks: string[] = [];
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => chunks.push(chunk));
      res.on("end", () => {
        try {
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(chunks.join("")) });
        } catch (e) {
          reject(e);
        }
      });
    });
    req.on("error", (e: Error & { code?: string; notSent?: boolean }) => {
      // Refused or no socket: nothing was sent, so the request may be tried again.
      if (!tcp && (e.code === "ECONNREFUSED" || e.code === "ENOENT")) e.notSent = true;
      reject(e);
    });
    req.end(text);
  });
}

// A daemon being started anew for this run, once at a time.
let restarting: Promise<boolean> | undefined;

/**
 * Starts the daemon again as `mcpx call` would (MCPX_DAEMON_START: the command `mcpx run` handed
 * on, `mcpx health` with the run's configuration), after the one the run was using went away;
 * whether it answered.
 */
function restartDaemon(): Promise<boolean> {
  const text = env("MCPX_DAEMON_START");
  if (!text) return Promise.resolve(false);
  return restarting ??= (async () => {
    try {
      const [command, ...args] = JSON.parse(text) as string[];
      const cwd = env("MCPX_CALLER_CWD");
      if (deno) {
        const out = await new deno.Command(command, {
          args,
          ...(cwd ? { cwd } : {}),
          stdin: "null",
          stdout: "null",
          stderr: "null",
        }).output();
        return out.code === 0;
      }
      const cp = await import("node:child_process");
      return await new Promise<boolean>((resolve) => {
        const child = cp.spawn(command, args, { ...(cwd ? { cwd } : {}), stdio: "ignore" });
        child.on("error", () => resolve(false));
        child.on("exit", (code: number | null) => resolve(code === 0));
      });
    } catch {
      return false;
    } finally {
      restarting = undefined;
    }
  })();
}

async function post(
  path: string,
  body: unknown,
  options: CallOptions = {},
  method = "POST",
): Promise<{ status: number; json: Json }> {
  try {
    return await postOnce(path, body, options, method);
  } catch (e) {
    // The daemon went away (killed, stopped): as `mcpx call` does, start one and send it again.
    // Only a request that never reached a daemon is sent again; one cut off may have run.
    if (!(e as { notSent?: boolean }).notSent || options.signal?.aborted) throw e;
    if (!(await restartDaemon())) throw e;
    return await postOnce(path, body, options, method);
  }
}

async function postOnce(
  path: string,
  body: unknown,
  options: CallOptions = {},
  method = "POST",
): Promise<{ status: number; json: Json }> {
  // In mcpx's Worker the run may start before the daemon has answered: wait for the word.
  const ready = g[Symbol.for("mcpx.daemon")];
  if (ready) {
    const problem = await ready;
    if (problem) throw new Error(problem);
  }
  const text = JSON.stringify(body);
  const key = await token();
  if (!deno) return await nodePost(path, text, callerHeader(), key, options.signal, method);
  if (method !== "POST") return await denoPost(path, text, callerHeader(), key, undefined, method);
  const onProgress = options.onProgress;
  // Progress is heard over the local socket; a daemon reached over TCP gives none.
  if (!onProgress || tcpEndpoint()) {
    return await denoPost(path, text, callerHeader(), key, options.signal);
  }
  const progress = crypto.randomUUID();
  const stop = await denoProgress(progress, key, onProgress).catch(() => () => {});
  try {
    return await denoPost(path, text, callerHeader(progress), key, options.signal);
  } finally {
    stop();
  }
}

/** What a call may be given besides its arguments. */
export interface CallOptions {
  /** Hears the tool's progress reports (under Deno). */
  onProgress?: (p: { progress: number; total?: number; message?: string }) => void;
  /** Cancels the call: the server is sent `notifications/cancelled`. */
  signal?: AbortSignal;
}

// A text result is a String object, so that it can carry `raw`; it prints as the text it is
// (`console.log(await fs.read_text_file(…))`), not as `[String: "…"]`.
const PRINTS_AS_TEXT = Object.fromEntries(
  ["Deno.customInspect", "nodejs.util.inspect.custom"].map((name) => [
    Symbol.for(name),
    {
      value: function (this: string) {
        return String(this);
      },
      enumerable: false,
    },
  ]),
);

function withRaw(value: Json, raw: RawResult): Json {
  const boxed = typeof value === "string" ? new String(value) : value;
  if (boxed instanceof String) Object.defineProperties(boxed, PRINTS_AS_TEXT);
  if (boxed !== null && typeof boxed === "object") {
    Object.defineProperty(boxed, "raw", { value: raw, enumerable: false });
  }
  return boxed;
}

/** Calls one tool (by its real name) through the mcpx daemon, under this run's session. */
export async function call(
  server: string,
  tool: string,
  args: Record<string, unknown> = {},
  options: CallOptions = {},
): Promise<ToolResult> {
  let answer: { status: number; json: Json };
  try {
    // With a handler installed, a question comes back at once rather than after elicit.wait.
    const ask = handlers.elicit || handlers.sample ? "&handOff=true" : "";
    // An ad-hoc server is named by its command line (or URL) on every call: any daemon takes it up.
    const via = Object.hasOwn(AD_HOC, server) ? `&${AD_HOC[server]}` : "";
    answer = await post(
      `/v1/call/${server}/${encodeURIComponent(tool)}?raw=true${ask}${via}`,
      args,
      options,
    );
  } catch (e) {
    if (options.signal?.aborted) {
      throw new ToolError(server, tool, "CANCELLED", `${server}.${tool} was cancelled`);
    }
    throw new ToolError(
      server,
      tool,
      "DAEMON_UNAVAILABLE",
      `Cannot reach the mcpx daemon on ${where()}: ${(e as Error).message}`,
    );
  }
  // deno-lint-ignore no-explicit-any
  let out = answer.json as any;
  // The server asked a question: a handler this script installed answers it inline, and the
  // answer's reply is the call's own result (or the next question, answered the same way).
  for (let round = 0; answer.status === 409 && out?.code === "INPUT_REQUIRED"; round++) {
    const question = out.data?.question as Question | undefined;
    const handler = question?.kind === "sample" ? handlers.sample : handlers.elicit;
    if (!question || !handler || round >= 64) break;
    const reply = await handler(question);
    const id = encodeURIComponent(question.id);
    answer = reply === undefined || reply === "decline"
      ? await post(`/v1/questions/${id}/decline`, {})
      : await post(`/v1/questions/${id}/answer`, {
        answer: typeof reply === "string" ? { content: { type: "text", text: reply } } : reply,
      });
    const done = answer.json as Json as AnswerReply;
    if (answer.status !== 200) {
      out = done;
      break;
    }
    if (done.next) {
      answer = { status: 409, json: { code: "INPUT_REQUIRED", data: done.next } };
      out = answer.json;
      continue;
    }
    if (done.error) {
      out = { code: done.error.code, detail: done.error.message, data: done.raw };
      answer = { status: 422, json: out };
      break;
    }
    const raw = (done.raw ?? { content: [] }) as RawResult;
    return withRaw(done.result, raw) as ToolResult;
  }
  if (answer.status !== 200) {
    throw new ToolError(
      server,
      tool,
      out?.code ?? "INTERNAL",
      out?.detail ?? `HTTP ${answer.status}`,
      out?.data,
    );
  }
  if (out.restarted) {
    // This run's process of the server was stopped to make room (or exited) since its last
    // call: say so, and carry it on .raw as `mcpx --json call` carries it on its document.
    logAt("warn")(
      `${server}.${tool} ran on a fresh process for ${out.instance?.key}: the one before was ` +
        `${out.restartReason}, and any state it held (pages, logins) is gone`,
    );
    const raw = { ...out.raw, mcpx: { restarted: true, restartReason: out.restartReason } };
    return withRaw(out.result, raw) as ToolResult;
  }
  return withRaw(out.result, out.raw) as ToolResult;
}

/** A question a server asked during a call (`elicitation/create` or `sampling/createMessage`). */
export interface Question {
  id: string;
  server: string;
  tool: string | null;
  kind: "elicit" | "sample";
  mode: "form" | "url" | "sampling";
  message: string;
  /** The form's `requestedSchema`, the URL, or the sampling request's parameters. */
  request: Record<string, unknown>;
  route: "agent" | "person";
  reason: string;
  deadline: string;
}

/**
 * What a handler answers: the form's values (checked against its schema, defaults applied), a
 * sampling result (`{ content, model? }` or the text), "decline", or undefined to leave the
 * question to `mcpx elicit answer` (the call then fails INPUT_REQUIRED with its ticket).
 */
export type QuestionHandler = (question: Question) => unknown | Promise<unknown>;

interface AnswerReply {
  result?: Json;
  raw?: Json;
  error?: { code: string; message: string };
  next?: { question: Question };
}

const handlers: { elicit?: QuestionHandler; sample?: QuestionHandler } = {};

/** Answers the elicitation questions this script's calls raise (one handler; the last one set). */
export function onElicit(handler: QuestionHandler | undefined): void {
  handlers.elicit = handler;
}

/** Answers the sampling requests this script's calls raise; declining one is an error to the server. */
export function onSample(handler: QuestionHandler | undefined): void {
  handlers.sample = handler;
}

/** A task as the daemon holds it (`mcpx tasks get --json`). */
export interface TaskInfo {
  id: string;
  server: string;
  tool: string;
  status: "working" | "input_required" | "completed" | "failed" | "cancelled";
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  expiresAt: string;
  leased: boolean;
  [k: string]: unknown;
}

/** What `<ns>.$task()` resolves to: the task's handle, and what follows it. */
export interface TaskHandle extends TaskInfo {
  /** The task now (`mcpx tasks get`). */
  get(): Promise<TaskInfo>;
  /** Waits for the task's result (`mcpx tasks result`); a tool error throws ToolError. */
  result(): Promise<ToolResult>;
  /** Cancels it on its server (`mcpx tasks cancel`). */
  cancel(): Promise<TaskInfo>;
}

/**
 * Calls one tool as an MCP task through the mcpx daemon (`mcpx call --task`): resolves with its
 * handle at once; `ttl` (1s to 24h, default the daemon's tasks.ttl) is how long it is kept.
 */
export async function startTask(
  server: string,
  tool: string,
  args: Record<string, unknown> = {},
  options: { ttl?: string } = {},
): Promise<TaskHandle> {
  const out = await requestFeature("/v1/tools/call", {
    server,
    tool,
    arguments: args,
    task: true,
    ...(options.ttl === undefined ? {} : { ttl: options.ttl }),
  });
  const info = out.result as unknown as TaskInfo;
  const id = encodeURIComponent(info.id);
  const ask = async (path: string, method = "POST") => {
    const answer = await post(path, {}, {}, method);
    // deno-lint-ignore no-explicit-any
    const body = answer.json as any;
    if (answer.status !== 200) {
      throw new ToolError(
        server,
        tool,
        body?.code ?? "INTERNAL",
        body?.detail ?? `HTTP ${answer.status}`,
        body?.data,
      );
    }
    return body;
  };
  return {
    ...info,
    get: () => ask(`/v1/tasks/${id}`, "GET") as Promise<TaskInfo>,
    result: async () => {
      const body = await ask(`/v1/tasks/${id}/result`, "GET");
      return withRaw(body.result as Json, body.raw as RawResult) as ToolResult;
    },
    cancel: () => ask(`/v1/tasks/${id}/cancel`) as Promise<TaskInfo>,
  };
}

/**
 * Prompts and resources of one server through the mcpx daemon, under this run's session: what
 * `<ns>.$prompts()`, `<ns>.$prompt()`, `<ns>.$resources()` and `<ns>.$read()` send.
 */
export async function requestFeature(
  path: string,
  body: Record<string, unknown>,
): Promise<Record<string, Json>> {
  const server = String(body.server ?? "");
  let answer: { status: number; json: Json };
  try {
    answer = await post(path, body);
  } catch (e) {
    throw new ToolError(
      server,
      path,
      "DAEMON_UNAVAILABLE",
      `Cannot reach the mcpx daemon on ${socket()}: ${(e as Error).message}`,
    );
  }
  // deno-lint-ignore no-explicit-any
  const out = answer.json as any;
  if (answer.status !== 200) {
    throw new ToolError(
      server,
      path,
      out?.code ?? "INTERNAL",
      out?.detail ?? `HTTP ${answer.status}`,
      out?.data,
    );
  }
  return out;
}

/** What search() returns for one tool. */
export interface SearchHit {
  namespace: string;
  tool: string;
  fn: string;
  description: string;
  required: string[];
  score: number;
}

function words(text: string): string[] {
  return text.replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2").toLowerCase()
    .split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

/**
 * Finds tools in this client, synchronously: everything it searches is already here. A word
 * matching a tool's name scores higher than one matching its description.
 */
export function search(query: string, limit = 10): SearchHit[] {
  const terms = words(query);
  const hits: SearchHit[] = [];
  for (const { signature: _signature, ...t } of META) {
    const name = words(t.tool);
    const desc = words(t.description);
    let score = 0;
    for (const term of terms) {
      if (t.tool === term) score += 100;
      else if (name.includes(term)) score += 40;
      else if (name.some((w) => w.startsWith(term) || term.startsWith(w) && w.length > 3)) {
        score += 30;
      } else if (t.namespace.toLowerCase().includes(term)) score += 20;
      else if (desc.some((w) => w.startsWith(term))) score += 10;
    }
    if (score > 0) hits.push({ ...t, score });
  }
  return hits.sort((a, b) => b.score - a.score || a.fn.localeCompare(b.fn)).slice(0, limit);
}

// The launcher's logger and emitter, reached lazily: this module may be imported before the
// launcher has installed them on globalThis.
const logAt = (level: string) => (msg: string, ...rest: unknown[]): void =>
  (g.log?.[level] ?? console.error)(msg, ...rest);

/** The script logger (see the script contract): log(msg) is log.info(msg). */
export const log = Object.assign(
  (msg: string, ...rest: unknown[]): void => logAt("info")(msg, ...rest),
  {
    debug: logAt("debug"),
    info: logAt("info"),
    warn: logAt("warn"),
    error: logAt("error"),
    with: (attrs: Record<string, unknown>) => g.log?.with?.(attrs) ?? log,
  },
);

/** Streams one value as a JSON line on stdout (collected under --json). */
export const emit = (value: unknown): void =>
  g.emit ? g.emit(value) : console.log(JSON.stringify(value));

/** The signature of one tool (`"ns.fn"` or `"ns.<real name>"`), as `mcpx types` prints it. */
export function describe(fn: string): string {
  const hit = META.find((t) => t.fn === fn || `${t.namespace}.${t.tool}` === fn);
  if (!hit) {
    throw new ToolError(
      "",
      fn,
      "TOOL_NOT_FOUND",
      `No tool "${fn}" in this client; search() finds one`,
    );
  }
  return hit.signature;
}
