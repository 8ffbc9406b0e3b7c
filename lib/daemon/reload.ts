// One daemon serves its configuration file across edits: an edit is taken up in place, and
// only the servers it changed are restarted (docs/daemon.md, "Configuration edits").

import { adapterStamp } from "../adapters/declare.ts";
import { McpxError, messageOf } from "../errors.ts";
import type { Context } from "../context.ts";
import { type Fingerprint, fingerprintConfig } from "../config/fingerprint.ts";
import { loadConfig, type McpxConfig } from "../config/load.ts";
import type { DaemonLog } from "../log/daemon.ts";
import { trustState, untrustedError } from "../config/trust.ts";
import type { Registry } from "../pool/registry.ts";
import type { ServerDef } from "../config/servers.ts";
import type { Settings } from "../settings/resolve.ts";
import type { ClientHalf } from "./client_half.ts";
import { cacheFor, defsOf } from "./wiring.ts";

/** What a reload reads and changes of the daemon (lib/daemon/server.ts). */
export interface Followed {
  /** The version served: replaced, with its fingerprint, when an edit is taken up. */
  readonly state: { fingerprint: string; config: McpxConfig };
  readonly registry: Registry;
  readonly half: ClientHalf;
  /** Why the daemon was asked to stop, "" until it was: a stopping daemon takes nothing up. */
  readonly stopReason: string;
  /** Whether it is stopping: its record is no longer written then. */
  readonly stopping: boolean;
  /** Writes the daemon's record, which names the fingerprint served. */
  writeRecord(): void;
}

/**
 * Follows the daemon's configuration file and adapter declarations: {@linkcode current} takes
 * up an edit (one at a time), or says why it cannot be; an edit that failed is not tried again
 * until the file changes again.
 */
export class ConfigFollower {
  readonly #ctx: Context;
  readonly #settings: Settings;
  readonly #log: DaemonLog;
  readonly #daemon: Followed;
  #fp: Fingerprint;
  #adapters: string;
  #reloading: Promise<McpxError | undefined> | undefined;
  #refused: { hash: string; adapters: string; error: McpxError } | undefined;
  #untrustedSaid: string | undefined;

  constructor(ctx: Context, settings: Settings, log: DaemonLog, fp: Fingerprint, daemon: Followed) {
    this.#ctx = ctx;
    this.#settings = settings;
    this.#log = log;
    this.#fp = fp;
    this.#daemon = daemon;
    this.#adapters = adapterStamp(settings, ctx.io.cwd);
  }

  /** The version of the file served. */
  get fp(): Fingerprint {
    return this.#fp;
  }

  /** Whether the adapter declarations (docs/adapters.md) changed since the version served. */
  adaptersEdited(): boolean {
    return adapterStamp(this.#settings, this.#ctx.io.cwd) !== this.#adapters;
  }

  /**
   * Whether the file or the adapter declarations changed since the version served.
   * @throws when the file cannot be read (removed).
   */
  edited(): boolean {
    return fingerprintConfig(this.#fp.path).hash !== this.#daemon.state.fingerprint ||
      this.adaptersEdited();
  }

  /**
   * Takes up the file as it is now; resolves to why it could not, if it could not. `vouched`:
   * the fingerprint a command found trusted.
   */
  async current(vouched?: string): Promise<McpxError | undefined> {
    while (this.#reloading) await this.#reloading;
    this.#reloading = this.#reload(vouched).finally(() => (this.#reloading = undefined));
    return await this.#reloading;
  }

  async #reload(vouched?: string): Promise<McpxError | undefined> {
    let now: Fingerprint;
    try {
      now = fingerprintConfig(this.#fp.path);
    } catch (e) {
      return e instanceof McpxError ? e : new McpxError("CONFIG_INVALID", messageOf(e));
    }
    // An edited adapter declaration (docs/adapters.md) is taken up like an edit of the file.
    const adaptersNow = adapterStamp(this.#settings, this.#ctx.io.cwd);
    if (now.hash === this.#daemon.state.fingerprint && adaptersNow === this.#adapters) {
      return undefined;
    }
    const refused = this.#refused;
    if (refused?.hash === now.hash && refused.adapters === adaptersNow) return refused.error;
    const untrusted = await this.#untrusted(now, vouched);
    if (untrusted) return untrusted;
    let next: McpxConfig, defs: ServerDef[];
    try {
      next = await loadConfig(now.path, now.text);
      defs = defsOf(next, this.#settings, this.#log, this.#ctx.io.cwd);
    } catch (e) {
      const error = e instanceof McpxError ? e : new McpxError("CONFIG_INVALID", messageOf(e));
      this.#refused = { hash: now.hash, adapters: adaptersNow, error };
      this.#log.write(
        "error",
        "config.reload_failed",
        `The edited configuration was not taken up: ${error.message}; still serving the one before`,
        { config: now.path },
      );
      return error;
    }
    if (this.#daemon.stopReason) return undefined; // a stopping daemon takes nothing up
    await this.#takeUp(now, adaptersNow, next, defs);
    return undefined;
  }

  /**
   * An edit starts nothing before it is trusted: a command that found this very version
   * trusted says so; without that word, the daemon asks as a command that did not name the file
   * would (a file named with --config is trusted only by the command that named it).
   */
  async #untrusted(now: Fingerprint, vouched?: string): Promise<McpxError | undefined> {
    if (vouched === now.hash) return undefined;
    const trust = await trustState(now.path, now.text, {
      ...this.#ctx.trustOptions(this.#fp.path),
      explicit: false,
    });
    if (trust.trusted) return undefined;
    if (this.#untrustedSaid !== now.hash) {
      this.#untrustedSaid = now.hash;
      this.#log.write(
        "warn",
        "config.reload_untrusted",
        "The edited configuration is not trusted: still serving the one before",
        { config: now.path, why: trust.why },
      );
    }
    return untrustedError(now.path, trust);
  }

  /** Serves the version `now` of the file: only the servers it changed are restarted. */
  async #takeUp(
    now: Fingerprint,
    adaptersNow: string,
    next: McpxConfig,
    defs: ServerDef[],
  ): Promise<void> {
    const { state, registry } = this.#daemon;
    // The cache so far lands first: the new version's starts from it (matched by identity).
    await registry.flushCache();
    const cache = await cacheFor(this.#ctx, now, defs, this.#log);
    const { kept, stopped } = await registry.reconfigure(defs, cache);
    this.#daemon.half.setDefs(defs);
    if (settingsText(next) !== settingsText(state.config)) {
      this.#log.write(
        "warn",
        "config.settings_changed",
        "Settings in the configuration file changed: they take effect when the daemon restarts (`mcpx stop`)",
        { config: now.path },
      );
    }
    this.#fp = now;
    this.#adapters = adaptersNow;
    state.fingerprint = now.hash;
    state.config = next;
    if (!this.#daemon.stopping) this.#daemon.writeRecord();
    this.#log.write("info", "config.reloaded", "Took up the edited configuration", {
      fingerprint: now.hash,
      kept,
      restarted: stopped,
    });
  }
}

/** The settings a configuration file holds (all but its servers): a reload does not take them up. */
function settingsText(config: McpxConfig): string {
  const { mcpServers: _s, pool: _p, $schema: _d, ...rest } = config.data;
  return JSON.stringify(rest);
}
