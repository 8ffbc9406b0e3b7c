import { hash64 } from "../_hash.ts";
import { readConfigText, unreadable } from "./load.ts";

/** A configuration's identity: the path resolved through symlinks, and its bytes. */
export interface Fingerprint {
  /** The real path of the configuration file. */
  path: string;
  /** 16 lowercase hex digits: lib/_hash.ts over the real path, a NUL and the file's bytes. */
  hash: string;
  /** The same digits: what names the schema cache and the `ls` summary. */
  short: string;
  /**
   * 16 hex digits over the real path alone: what names the daemon's socket, record, token and
   * other files. One daemon serves a configuration file across its edits (docs/daemon.md).
   */
  key: string;
  /** The text fingerprinted, so a caller can parse exactly what was hashed. */
  text: string;
}

/**
 * Fingerprints a configuration file without parsing it. Synchronous: the file is small, and each
 * asynchronous file call costs a start-up a trip through Deno's thread pool.
 * @throws {McpxError} CONFIG_INVALID (exit 3) for a file that cannot be read.
 */
export function fingerprintConfig(path: string): Fingerprint {
  let real: string;
  try {
    real = Deno.realPathSync(path);
  } catch (e) {
    throw unreadable(path, e);
  }
  // Read as text and encoded back: the same bytes for a UTF-8 file (a byte that is not UTF-8
  // reads as U+FFFD, as it would when parsed). Decoding in JavaScript instead, with TextDecoder,
  // cost a start ~0.1 ms on its first use (performance.now() around it).
  const text = readConfigText(real);
  const hash = hash64(new TextEncoder().encode(real + "\0" + text));
  const key = hash64(new TextEncoder().encode(real));
  return { path: real, hash, short: hash, key, text };
}
