// The daemon's answer to one request (lib/daemon/server.ts), the same on every listener after its
// own check of who is asking (lib/daemon/listeners.ts): the successor's gate during an upgrade,
// the body's bound, a reload a command's fingerprint asks for, and the answer's headers.

import { McpxError, messageOf, toProblem } from "../errors.ts";
import { Context, type DaemonHandle } from "../context.ts";
import type { DaemonLog } from "../log/daemon.ts";
import type { Registry } from "../pool/registry.ts";
import type { Settings } from "../settings/resolve.ts";
import { load } from "../_load.ts";
import { FINGERPRINT_HEADER } from "./client.ts";
import { CALLER_HEADER, decodeCaller, TRUSTED_HEADER, VERSION_HEADER } from "./wire.ts";
import { readBounded } from "./guard.ts";
import type { ConfigFollower } from "./reload.ts";
import type { Predecessor, Successor } from "./upgrade.ts";

/**
 * What the daemon answers on its socket: a handler built from `context`, which gives each request
 * the {@linkcode Context} it runs in (lib/surfaces/daemon.ts builds the `/v1` router).
 */
export type Serve = (context: (req: Request) => Context) => (req: Request) => Promise<Response>;

/** What the handler reads of the daemon (lib/daemon/server.ts), as it is at each request. */
export interface Handled {
  /** What operations see of the daemon, with when it last answered and what it answers now. */
  readonly state: DaemonHandle & { lastActivity: number; inflight: number };
  readonly registry: Registry;
  readonly follower: ConfigFollower;
  /**
   * From an upgrade's handoff on, the successor's socket: a request this daemon still receives
   * (a connection made just before its socket was replaced) goes there.
   */
  readonly forwardTo: Deno.HttpClient | undefined;
  /** The daemon this one succeeds (upgrade.ts), if any. */
  readonly from: Predecessor | undefined;
  /** This daemon's side of that handoff, once it listens. */
  readonly successor: Successor | undefined;
  /** Settles once this daemon owns the processes: a successor holds requests until then. */
  readonly takenOver: Promise<void>;
}

/** Answers a refused request, or undefined to let it through. */
export type Refusal = (req: Request) => Response | undefined;

/** The daemon's requests, answered by what `serve` builds. */
export class Handler {
  readonly #daemon: Handled;
  readonly #log: DaemonLog;
  readonly #version: string;
  readonly #route: (req: Request) => Promise<Response>;
  /** The requests that came over the TCP listener, as handed to the route. */
  readonly #overTcp = new WeakSet<Request>();
  readonly #maxBytes: number;
  readonly #memoryEvery: number;
  readonly #snapshots: string;
  #requests = 0;

  constructor(
    ctx: Context,
    daemon: Handled,
    serve: Serve,
    options: { settings: Settings; log: DaemonLog; version: string },
  ) {
    this.#daemon = daemon;
    this.#log = options.log;
    this.#version = options.version;
    this.#route = serve((req) => {
      // A garbled caller is refused (400): a call under the wrong scope could share a process it
      // must not.
      const caller = decodeCaller(req.headers.get(CALLER_HEADER));
      // Where it came from is the daemon's word, whatever the header said.
      if (this.#overTcp.has(req)) caller.overTcp = true;
      else delete caller.overTcp;
      // A call whose client goes away is cancelled with it (notifications/cancelled to the server).
      const perRequest = new Context(ctx.io, ctx.flags, daemon.state, caller, ctx.boot, req.signal);
      return perRequest;
    });
    this.#maxBytes = options.settings.get("daemon.maxRequestBytes");
    this.#memoryEvery = options.settings.get("plumbing.memoryLog");
    this.#snapshots = options.settings.get("plumbing.heapSnapshots");
  }

  /**
   * The handler of a listener that refuses with `refusal`. `bare` (TCP): a refusal says nothing
   * of the daemon (no fingerprint), the asker may be anyone.
   */
  for(refusal: Refusal, bare = false): (req: Request) => Promise<Response> {
    return async (req) => {
      const refused = refusal(req);
      if (refused && bare) return refused;
      const state = this.#daemon.state;
      state.lastActivity = Date.now();
      state.inflight++;
      try {
        return await this.#answer(req, refused, bare);
      } finally {
        state.inflight--;
        state.lastActivity = Date.now();
        if (this.#memoryEvery > 0 && ++this.#requests % this.#memoryEvery === 0) {
          const n = this.#requests;
          // After the answer has gone: what the request held is garbage by then.
          setTimeout(() => void logMemory(this.#log, n, this.#daemon.registry, this.#snapshots), 0);
        }
      }
    };
  }

  async #answer(req: Request, refused: Response | undefined, bare: boolean): Promise<Response> {
    const daemon = this.#daemon;
    const forwardTo = daemon.forwardTo;
    if (forwardTo && !refused && !bare) return await forward(req, forwardTo);
    if (daemon.from && !refused) {
      const held = await this.#successorGate(req, bare);
      if (held) return held;
    }
    const ready = refused ?? await readBounded(req, this.#maxBytes);
    if (bare && !(ready instanceof Response)) this.#overTcp.add(ready);
    if (!(ready instanceof Response)) {
      const failed = await this.#takeUpWanted(req);
      if (failed) return failed;
    }
    const res = ready instanceof Response ? ready : await this.#route(ready);
    res.headers.set(FINGERPRINT_HEADER, daemon.state.fingerprint);
    res.headers.set(VERSION_HEADER, this.#version);
    return res;
  }

  /**
   * A successor's gate: the predecessor's handoff (upgrade.ts) is answered; everything else
   * waits for its end (undefined once it may go on).
   */
  async #successorGate(req: Request, bare: boolean): Promise<Response | undefined> {
    const path = new URL(req.url).pathname;
    if (path === "/v1/daemon/handoff" && req.method === "POST" && !bare) {
      const successor = this.#daemon.successor;
      return successor && !successor.done
        ? await successor.handle(req)
        : problemResponse(new McpxError("USAGE", "No handoff is under way"));
    }
    if (path !== "/v1/health") await this.#daemon.takenOver;
    return undefined;
  }

  /**
   * A command that read another version of the file: take up the file as it is now first, or say
   * why it cannot be (undefined once the version served is the file's).
   */
  async #takeUpWanted(req: Request): Promise<Response | undefined> {
    const { state, follower } = this.#daemon;
    const wanted = req.headers.get(FINGERPRINT_HEADER);
    const edited = (wanted && wanted !== state.fingerprint) || follower.adaptersEdited();
    if (!edited) return undefined;
    const vouched = wanted && req.headers.get(TRUSTED_HEADER) === wanted ? wanted : undefined;
    const failed = await follower.current(vouched);
    if (!failed) return undefined;
    // The answer is about the version the command read: it carries its fingerprint.
    const res = problemResponse(failed);
    if (wanted) res.headers.set(FINGERPRINT_HEADER, wanted);
    return res;
  }
}

/** Sends `req` to the daemon `client` reaches (the successor during an upgrade) and relays its answer. */
export async function forward(req: Request, client: Deno.HttpClient): Promise<Response> {
  const url = new URL(req.url);
  const headers = new Headers(req.headers);
  headers.delete("host");
  try {
    const res = await fetch(`http://mcpx${url.pathname}${url.search}`, {
      method: req.method,
      headers,
      body: req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer(),
      client,
      signal: req.signal,
    });
    return new Response(res.body, { status: res.status, headers: res.headers });
  } catch (e) {
    return problemResponse(
      new McpxError(
        "DAEMON_UNAVAILABLE",
        `The daemon was being upgraded and its successor did not answer: ${messageOf(e)}`,
        { hint: "Run the command again" },
      ),
    );
  }
}

/** One `daemon.memory` record (`plumbing.memoryLog`); lib/daemon/memory.ts is loaded for it. */
async function logMemory(
  log: DaemonLog,
  requests: number,
  registry: Registry,
  snapshots: string,
): Promise<void> {
  try {
    const { measureMemory } = await load<typeof import("./memory.ts")>(
      "./memory.ts",
      import.meta.url,
    );
    const record = await measureMemory(requests, registry.tables(), snapshots);
    log.write("info", "daemon.memory", `Memory after ${requests} requests`, { ...record });
  } catch (e) {
    log.write("warn", "daemon.memory_failed", `Cannot measure memory: ${messageOf(e)}`);
  }
}

/** An error as the `/v1` problem document it is answered with. */
function problemResponse(error: McpxError): Response {
  const body = toProblem(error);
  return new Response(JSON.stringify(body), {
    status: body.status,
    headers: { "content-type": "application/problem+json" },
  });
}
