// The environment a server process starts with: a small base, the variables passed through by
// name, and the server's own `env`; never the rest of whichever command started the daemon.
// docs/configuration.md and docs/security.md describe it.

/** A `${VAR}` reference in a server entry; `$${VAR}` stands for a literal `${VAR}`. */
export const REFERENCE = /\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * How a server reaches the network, which names no secret of a caller's: the proxy to use and
 * the certificates to trust (`npx` cannot fetch a server through a TLS-inspecting proxy without
 * them).
 */
export const NETWORK_VARIABLES = [
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
] as const;

/** The variables every stdio server gets from the daemon's environment, besides `LC_*`. */
export const BASE_VARIABLES = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TZ",
  "TMPDIR",
  "LANG",
  "LANGUAGE",
  ...NETWORK_VARIABLES,
] as const;

/** Where a server's `${VAR}` references are read: the daemon's environment, or each caller's. */
export const ENV_FROM = ["daemon", "caller"] as const;

/** The names in `servers.envPassthrough` (comma-separated). */
export function passthroughNames(setting: string): string[] {
  return [...new Set(setting.split(",").map((n) => n.trim()).filter(Boolean))];
}

/** Every variable a server entry references as `${VAR}`, in its fields or its `auth` block. */
export function referencedVariables(entry: unknown): string[] {
  const names = new Set<string>();
  const walk = (v: unknown) => {
    if (typeof v === "string") {
      for (const m of v.matchAll(REFERENCE)) if (!m[1]) names.add(m[2]);
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) if (k !== "mcpx") walk(x);
    }
  };
  walk(entry);
  return [...names].sort();
}

/**
 * The variables of `env` a server that reads its references from its caller asks for: the
 * `${VAR}` references of every entry of `mcpServers` whose mcpx block says `"envFrom": "caller"`.
 * What the CLI sends the daemon of its own environment, and nothing else.
 */
export function callerVariables(mcpServers: Record<string, unknown>): string[] {
  const names = new Set<string>();
  const entries = mcpServers as Record<string, { mcpx?: { envFrom?: unknown }; aliasOf?: unknown }>;
  for (const entry of Object.values(entries)) {
    if (entry?.mcpx?.envFrom !== "caller") continue;
    // An alias runs its target's process: the target's references are what it expands.
    const target = typeof entry.aliasOf === "string" ? entries[entry.aliasOf] : entry;
    for (const n of referencedVariables(target ?? entry)) names.add(n);
  }
  return [...names].sort();
}

/** The values of `names` that `env` sets. */
export function pick(
  env: Readonly<Record<string, string>>,
  names: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) if (env[n] !== undefined) out[n] = env[n];
  return out;
}

/**
 * A stdio server's whole environment: {@linkcode BASE_VARIABLES} and `LC_*` from the daemon's,
 * the `passthrough` names from the daemon's, then the server's own `env` (already expanded).
 */
export function serverEnvironment(
  daemonEnv: Readonly<Record<string, string>>,
  passthrough: readonly string[],
  own: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = pick(daemonEnv, BASE_VARIABLES);
  for (const [k, v] of Object.entries(daemonEnv)) if (k.startsWith("LC_")) out[k] = v;
  return { ...out, ...pick(daemonEnv, passthrough), ...own };
}
