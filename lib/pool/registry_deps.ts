import type { CacheWriter } from "../cache/schema_cache.ts";
import type { Broker } from "../questions/broker.ts";
import type { PoolDeps } from "./pool.ts";
import type { Caller, Discover } from "./scope.ts";
import type { OwnersDeps } from "./owners.ts";
import type { StartSignIn } from "./sign_in.ts";
import type { CallFinished } from "./call_types.ts";
import type { LiveState } from "./status.ts";

/**
 * What the registry needs from the daemon: a pool's needs (`logParent`, the daemon's log id, is
 * also the parent of what the registry creates when no run asked for it) but what the registry
 * tells its pools itself, what tells a session's owner and a call's caller alive
 * (`identify`, `descendants`: lib/pool/owners.ts), and its own.
 */
export interface RegistryDeps extends Omit<PoolDeps, "listed" | "failed" | "changed">, OwnersDeps {
  discover: Discover;
  /** MCPX_TRACE / logging.trace: one log line per call naming the instance that served it. */
  trace: boolean;
  /** How often idle instances are reaped. */
  reapIntervalMs: number;
  alive(pid: number): boolean;
  /** Where listings and start failures are recorded for `ls`, `types` and `search`. */
  cache?: CacheWriter;
  /**
   * Told the live processes per namespace (as `status()` counts them) and the scope keys they
   * serve whenever they change, at most once per turn of the event loop.
   */
  live?(state: LiveState): void;
  /**
   * Told each call that finished, answered or not (the `call.finished` event); a call in a
   * session names it, with its arguments and its result, each summarised (`mcpx session attach
   * --watch` shows them).
   */
  called?(call: CallFinished): void;
  /**
   * The named sessions (lib/sessions/named.ts): `enter` is told each call of a session before it
   * is served (it may refuse it, or return why its processes start fresh), `leave` after.
   */
  sessions?: {
    enter(caller: Caller): string | undefined;
    leave(caller: Caller): void;
    /** Whether a scope key is an open named session's: its TTL, not idleTimeout, stops it. */
    keeps?(key: string): boolean;
  };
  /** Told the server processes (pid, server, instance) whenever they change, like `live`. */
  children?(list: { pid: number; server: string; instance: string }[]): void;
  /**
   * The daemon's questions (lib/questions/broker.ts): a call whose server asks one waits
   * `elicitWaitMs` for an inline answer, then fails INPUT_REQUIRED with the ticket while the call
   * goes on in the daemon.
   */
  questions?: Broker;
  elicitWaitMs?: number;
  /**
   * Starts a sign-in in the daemon for a call that needs OAuth and has no token
   * (lib/pool/sign_in.ts): the URL becomes a URL-mode question, the call INPUT_REQUIRED.
   */
  signIn?: StartSignIn;
}
