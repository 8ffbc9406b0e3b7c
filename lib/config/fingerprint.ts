/** A configuration's identity: the path resolved through symlinks, and its bytes. */
export interface Fingerprint {
  /** The real path of the configuration file. */
  path: string;
  /** Lowercase hex SHA-256 over the real path, a NUL and the file's bytes. */
  hash: string;
  /** The first 16 hex digits: what names the daemon's socket, record and schema cache. */
  short: string;
  /** The bytes fingerprinted, so a caller can parse exactly what was hashed. */
  bytes: Uint8Array;
}

/** Fingerprints a configuration file without parsing it. */
export async function fingerprintConfig(path: string): Promise<Fingerprint> {
  const real = await Deno.realPath(path);
  const bytes = await Deno.readFile(real);
  const name = new TextEncoder().encode(real + "\0");
  const all = new Uint8Array(name.length + bytes.length);
  all.set(name);
  all.set(bytes, name.length);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", all));
  const hash = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  return { path: real, hash, short: hash.slice(0, 16), bytes };
}
