import { hash64 } from "../_hash.ts";

/** A configuration's identity: the path resolved through symlinks, and its bytes. */
export interface Fingerprint {
  /** The real path of the configuration file. */
  path: string;
  /** 16 lowercase hex digits: lib/_hash.ts over the real path, a NUL and the file's bytes. */
  hash: string;
  /** The same digits: what names the daemon's socket, record and schema cache. */
  short: string;
  /** The text fingerprinted, so a caller can parse exactly what was hashed. */
  text: string;
}

/**
 * Fingerprints a configuration file without parsing it. Synchronous: the file is small, and each
 * asynchronous file call costs a start-up a trip through Deno's thread pool.
 */
export function fingerprintConfig(path: string): Fingerprint {
  const real = Deno.realPathSync(path);
  const bytes = Deno.readFileSync(real);
  const name = new TextEncoder().encode(real + "\0");
  const all = new Uint8Array(name.length + bytes.length);
  all.set(name);
  all.set(bytes, name.length);
  const hash = hash64(all);
  return { path: real, hash, short: hash, text: new TextDecoder().decode(bytes) };
}
