import { McpxError } from "../errors.ts";
import { REFERENCE } from "../config/server_env.ts";
import type { OAuthClientConfig } from "./oauth/mod.ts";

/** The `auth` block of a server entry. */
export type AuthConfig =
  | { type: "bearer"; token: string }
  | { type: "basic"; username: string; password: string }
  | { type: "header"; name: string; value: string }
  | { type: "query"; name: string; value: string }
  | { type: "env"; env: Record<string, string> }
  | { type: "oauth" };

/** The parts of a server entry that may carry credentials or `${VAR}` references. */
export interface AuthEntry {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
  /** Checked here: an {@linkcode AuthConfig}, or absent. */
  auth?: unknown;
}

/** An entry's connection details with every `${VAR}` expanded and its `auth` applied. */
export interface ResolvedAuth {
  headers: Record<string, string>;
  /** Added to the daemon's environment for a stdio child. */
  env: Record<string, string>;
  url?: string;
  args: string[];
}

/** Things that can be printed after {@linkcode redact}. */
export interface Redactable {
  headers?: Record<string, string>;
  env?: Record<string, string>;
  url?: string;
  args?: string[];
}

/** Names (of headers, variables, query parameters, flags) whose values are treated as secret. */
const SECRET_NAME =
  /token|secret|passw|pwd|api[-_]?key|apikey|auth|credential|cookie|session|private[-_]?key|access[-_]?key|signature|^-*key$|[-_]key$/i;

/**
 * Headers shown as they are. Every other header's value is masked: HTTP credentials travel in
 * headers under any name a vendor chose, so for headers the name proves nothing.
 */
const PLAIN_HEADERS = new Set([
  "accept",
  "accept-language",
  "cache-control",
  "content-type",
  "mcp-protocol-version",
  "user-agent",
  "x-request-id",
]);

/**
 * Expands `${VAR}` references in an entry's headers, env, url and args from `options.env`, and
 * applies its `auth` block: bearer and basic become an `Authorization` header, header adds a
 * header, query adds a query parameter to the URL, env adds variables for the child. `$${X}`
 * stands for a literal `${X}`.
 *
 * Variables come from `options.env` (the daemon's environment, handed in), so that the daemon
 * decides which environment counts and tests need not touch the real one.
 *
 * @throws {McpxError} CREDENTIALS_MISSING naming the first unset variable and where it is used.
 * @throws {McpxError} CONFIG_INVALID for a malformed `auth` block.
 *
 * @example
 * ```ts
 * const { headers } = resolveAuth("api", {
 *   url: "https://example.com/mcp",
 *   auth: { type: "bearer", token: "${API_TOKEN}" },
 * }, { env: { API_TOKEN: "t0k" } });
 * // headers.Authorization === "Bearer t0k"
 * ```
 */
export function resolveAuth(
  name: string,
  entry: AuthEntry,
  options: { env: Record<string, string> },
): ResolvedAuth {
  const expand = (text: string, where: string) => expandReferences(name, text, where, options.env);
  const headers = mapValues(entry.headers, (v, k) => expand(v, `headers.${k}`));
  const env = mapValues(entry.env, (v, k) => expand(v, `env.${k}`));
  const args = (entry.args ?? []).map((v, i) => expand(v, `args[${i}]`));
  let url = entry.url === undefined ? undefined : expand(entry.url, "url");

  const auth = checkAuth(name, entry);
  if (auth) {
    const field = (key: string) => expand((auth as Record<string, string>)[key], `auth.${key}`);
    switch (auth.type) {
      case "oauth":
        // Performed by the connection (lib/mcp/oauth/) with the tokens `mcpx auth login` stored.
        break;
      case "bearer":
        headers.Authorization = `Bearer ${noLineBreak(name, field("token"), "auth.token")}`;
        break;
      case "basic": {
        const pair = `${field("username")}:${field("password")}`;
        headers.Authorization = `Basic ${base64(noLineBreak(name, pair, "auth"))}`;
        break;
      }
      case "header":
        headers[auth.name] = noLineBreak(name, field("value"), "auth.value");
        break;
      case "query": {
        const target = parseUrl(name, url);
        target.searchParams.set(auth.name, field("value"));
        url = target.href;
        break;
      }
      case "env":
        for (const [key, value] of Object.entries(auth.env)) {
          env[key] = expand(value, `auth.env.${key}`);
        }
        break;
    }
  }
  return url === undefined ? { headers, env, args } : { headers, env, url, args };
}

/**
 * A copy of `spec` fit for printing: every secret value is replaced by the `${VAR}` reference it
 * came from (when `entry`, the configuration as written, shows one) or by `***`. Secret means:
 * produced by the `auth` block; any header value but a few plain ones (`Accept`,
 * `Content-Type`, …); or an env variable, query parameter or flag whose name looks like a
 * credential (`*_TOKEN`, `*_KEY`, `api_key`, `--password`, …). Any other value that contains a
 * secret's text has that text masked too.
 */
export function redact<T extends Redactable>(spec: T, entry?: AuthEntry): T {
  const auth = entry && isObject(entry.auth) ? entry.auth as Partial<Record<string, unknown>> : {};
  const template = (text: unknown) =>
    typeof text === "string" && /\$\{/.test(text) ? text : undefined;
  const secrets = collectSecrets(spec, auth);
  const mask = (text: string) => {
    for (const secret of secrets) text = text.replaceAll(secret, "***");
    return text;
  };
  const out: T = { ...spec };

  if (spec.headers) {
    out.headers = mapValues(spec.headers, (value, key) => {
      const written = template(entry?.headers?.[key]);
      if (written) return written;
      if (key.toLowerCase() === "authorization" && auth.type === "bearer") {
        return `Bearer ${template(auth.token) ?? "***"}`;
      }
      if (key.toLowerCase() === "authorization" && auth.type === "basic") return "Basic ***";
      if (auth.type === "header" && key === auth.name) return template(auth.value) ?? "***";
      return PLAIN_HEADERS.has(key.toLowerCase()) ? mask(value) : "***";
    });
  }
  if (spec.env) {
    const authEnv = auth.type === "env" && isObject(auth.env) ? auth.env : {};
    out.env = mapValues(spec.env, (value, key) => {
      if (Object.hasOwn(authEnv, key)) return template(authEnv[key]) ?? "***";
      const written = template(entry?.env?.[key]);
      if (written) return written;
      return SECRET_NAME.test(key) ? "***" : mask(value);
    });
  }
  if (spec.url !== undefined) {
    const written = template(entry?.url);
    out.url = written ? withAuthQuery(mask(written), auth) : redactUrl(spec.url, auth, mask);
  }
  if (spec.args) {
    out.args = spec.args.map((arg, i) => {
      const written = template(entry?.args?.[i]);
      if (written) return written;
      const flag = /^(--?[\w.-]+)=(.*)$/.exec(arg);
      if (flag && SECRET_NAME.test(flag[1])) return `${flag[1]}=***`;
      const previous = spec.args?.[i - 1];
      if (previous && /^--?[\w.-]+$/.test(previous) && SECRET_NAME.test(previous)) return "***";
      return mask(arg);
    });
  }
  return out;
}

const OAUTH_KEYS = [
  "clientId",
  "clientSecret",
  "scopes",
  "clientMetadataUrl",
  "grant",
  "privateKey",
  "assertion",
  "idpTokenEndpoint",
  "idpClientId",
  "idpClientSecret",
  "idToken",
];

const GRANTS = ["authorization_code", "client_credentials", "jwt_bearer", "enterprise"];

/**
 * The `mcpx.oauth` block of a server entry (a pre-registered client, its scopes), checked and
 * with `${VAR}` expanded from `env`; undefined when the entry has none.
 * @throws {McpxError} CONFIG_INVALID for a malformed block, CREDENTIALS_MISSING for an unset variable
 */
export function oauthClientConfig(
  name: string,
  block: unknown,
  env: Record<string, string>,
): OAuthClientConfig | undefined {
  if (block === undefined) return undefined;
  const bad = (what: string) => new McpxError("CONFIG_INVALID", `Server "${name}": ${what}`);
  if (!isObject(block)) throw bad(`"mcpx.oauth" must be an object`);
  const out: OAuthClientConfig = {};
  for (const key of Object.keys(block)) {
    if (!OAUTH_KEYS.includes(key)) {
      throw bad(`unknown field "mcpx.oauth.${key}" (${OAUTH_KEYS.join(", ")})`);
    }
  }
  if (block.grant !== undefined) {
    if (!GRANTS.includes(String(block.grant))) {
      throw bad(`"mcpx.oauth.grant" must be one of ${GRANTS.map((g) => `"${g}"`).join(", ")}`);
    }
    out.grant = block.grant as OAuthClientConfig["grant"];
  }
  for (
    const key of [
      "clientId",
      "clientSecret",
      "clientMetadataUrl",
      "privateKey",
      "assertion",
      "idpTokenEndpoint",
      "idpClientId",
      "idpClientSecret",
      "idToken",
    ] as const
  ) {
    const value = block[key];
    if (value === undefined) continue;
    if (typeof value !== "string") throw bad(`"mcpx.oauth.${key}" must be a string`);
    out[key] = expandReferences(name, value, `mcpx.oauth.${key}`, env);
  }
  if (block.scopes !== undefined) {
    const scopes = block.scopes;
    if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === "string")) {
      throw bad(`"mcpx.oauth.scopes" must be a list of strings`);
    }
    out.scopes = scopes;
  }
  if (out.clientSecret && !out.clientId) throw bad(`"mcpx.oauth.clientSecret" needs a clientId`);
  if (
    out.grant === "client_credentials" && (!out.clientId || !(out.clientSecret || out.privateKey))
  ) {
    throw bad(
      `"mcpx.oauth.grant" "client_credentials" needs a clientId and a clientSecret or privateKey`,
    );
  }
  if (out.grant === "jwt_bearer" && (!out.clientId || !out.assertion)) {
    throw bad(`"mcpx.oauth.grant" "jwt_bearer" needs a clientId and an assertion`);
  }
  if (out.grant === "enterprise" && (!out.clientId || !out.idpTokenEndpoint || !out.idToken)) {
    throw bad(
      `"mcpx.oauth.grant" "enterprise" needs a clientId, an idpTokenEndpoint and an idToken`,
    );
  }
  return out;
}

function expandReferences(
  name: string,
  text: string,
  where: string,
  env: Record<string, string>,
): string {
  return text.replace(REFERENCE, (whole, escaped: string, variable: string) => {
    if (escaped) return whole.slice(1);
    const value = env[variable];
    if (value === undefined) {
      throw new McpxError(
        "CREDENTIALS_MISSING",
        `Server "${name}" needs \${${variable}} (in ${where}), which is not set`,
        {
          hint:
            `Export it in the environment the daemon starts from, then \`mcpx restart ${name}\``,
        },
      );
    }
    return value;
  });
}

const AUTH_FIELDS: Record<string, string[]> = {
  bearer: ["token"],
  basic: ["username", "password"],
  header: ["name", "value"],
  query: ["name", "value"],
  env: [],
  oauth: [],
};

/** Checks the `auth` block's shape and that it suits the kind of server. */
function checkAuth(name: string, entry: AuthEntry): AuthConfig | undefined {
  const auth = entry.auth;
  if (auth === undefined) return undefined;
  const bad = (what: string) => new McpxError("CONFIG_INVALID", `Server "${name}": ${what}`);
  if (!isObject(auth)) throw bad(`"auth" must be an object`);
  const type = auth.type;
  if (typeof type !== "string" || !Object.hasOwn(AUTH_FIELDS, type)) {
    throw bad(`"auth.type" must be one of ${Object.keys(AUTH_FIELDS).join(", ")}`);
  }
  for (const field of AUTH_FIELDS[type]) {
    if (typeof auth[field] !== "string") throw bad(`"auth.${field}" must be a string`);
  }
  if (type === "env") {
    const env = auth.env;
    if (!isObject(env) || !Object.values(env).every((v) => typeof v === "string")) {
      throw bad(`"auth.env" must be an object of strings`);
    }
  }
  const remote = entry.url !== undefined;
  if (["bearer", "basic", "header", "query"].includes(type) && !remote) {
    throw bad(
      `auth type "${type}" applies to a "url" server; a command takes credentials through ` +
        `{"type": "env"}`,
    );
  }
  if (type === "env" && remote) {
    throw bad(`auth type "env" applies to a "command" server; use bearer, basic, header or query`);
  }
  return auth as AuthConfig;
}

function redactUrl(
  url: string,
  auth: Partial<Record<string, unknown>>,
  mask: (text: string) => string,
): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return mask(url);
  }
  const base = `${parsed.protocol}//${
    parsed.username ? "***@" : ""
  }${parsed.host}${parsed.pathname}`;
  const params = [...parsed.searchParams].map(([key, value]) => {
    if (auth.type === "query" && key === auth.name) {
      const written = typeof auth.value === "string" && /\$\{/.test(auth.value);
      return `${key}=${written ? auth.value : "***"}`;
    }
    return `${key}=${SECRET_NAME.test(key) ? "***" : mask(value)}`;
  });
  return params.length ? `${base}?${params.join("&")}` : base;
}

/** A URL as written, plus the query parameter `auth` adds, shown as its reference. */
function withAuthQuery(url: string, auth: Partial<Record<string, unknown>>): string {
  if (auth.type !== "query") return url;
  const value = typeof auth.value === "string" && /\$\{/.test(auth.value) ? auth.value : "***";
  return `${url}${url.includes("?") ? "&" : "?"}${auth.name}=${value}`;
}

/** Every value in `spec` that is a secret, longest first, so that masking is thorough. */
function collectSecrets(spec: Redactable, auth: Partial<Record<string, unknown>>): string[] {
  const found = new Set<string>();
  const add = (value: string | undefined) => {
    // Short values would mask ordinary text; no real credential is this short.
    if (value && value.length >= 4) found.add(value);
  };
  for (const [key, value] of Object.entries(spec.headers ?? {})) {
    if (PLAIN_HEADERS.has(key.toLowerCase())) continue;
    add(value);
    const scheme = /^(?:Bearer|Basic|Token)\s+(.+)$/i.exec(value);
    if (scheme) {
      add(scheme[1]);
      if (/^basic/i.test(value)) {
        const decoded = decodeBase64(scheme[1]);
        add(decoded);
        add(decoded?.slice(decoded.indexOf(":") + 1));
      }
    }
  }
  const authEnv = auth.type === "env" && isObject(auth.env) ? auth.env : {};
  for (const [key, value] of Object.entries(spec.env ?? {})) {
    if (SECRET_NAME.test(key) || Object.hasOwn(authEnv, key)) add(value);
  }
  if (spec.url) {
    try {
      const parsed = new URL(spec.url);
      add(decodeURIComponent(parsed.password));
      for (const [key, value] of parsed.searchParams) {
        if (SECRET_NAME.test(key) || (auth.type === "query" && key === auth.name)) add(value);
      }
    } catch {
      // Not a URL: nothing to take from it.
    }
  }
  return [...found].sort((a, b) => b.length - a.length);
}

function parseUrl(name: string, url: string | undefined): URL {
  try {
    return new URL(url ?? "");
  } catch {
    throw new McpxError("CONFIG_INVALID", `Server "${name}" has no valid "url"`);
  }
}

function noLineBreak(name: string, value: string, where: string): string {
  if (/[\r\n]/.test(value)) {
    throw new McpxError(
      "CONFIG_INVALID",
      `Server "${name}": the credential in ${where} contains a line break`,
      { hint: "Strip the trailing newline from the variable that holds it" },
    );
  }
  return value;
}

function base64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function decodeBase64(text: string): string | undefined {
  try {
    return new TextDecoder().decode(Uint8Array.from(atob(text), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

function mapValues(
  record: Record<string, string> | undefined,
  fn: (value: string, key: string) => string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(record ?? {})) out[key] = fn(value, key);
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
