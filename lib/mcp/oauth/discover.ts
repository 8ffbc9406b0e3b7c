/**
 * OAuth metadata discovery for an MCP endpoint (docs/oauth.md): the challenge of an
 * unauthenticated request (and the one a connection was refused with, kept for sign-in), the
 * protected resource's metadata (RFC 9728), then its authorization server's (RFC 8414, OpenID
 * Connect).
 */
import { McpxError } from "../../errors.ts";
import { writeFileAtomic } from "../../_atomic.ts";
import { join } from "../../_path.ts";
import { type Fetch, type OAuthUse, reaching, resourceOf, shortHash } from "./store.ts";

export function wwwAuthenticate(response: Response): string {
  return response.headers.get("www-authenticate") ?? "";
}

function challengePath(dir: string, resource: string): string {
  return join(dir, "challenges", `${shortHash(resource)}.json`);
}

/**
 * Keeps the challenge a connection was refused with (its `scope` and `resource_metadata`), for
 * `mcpx auth login`, whose own unauthenticated probe may not be refused the same way (a server
 * that lets `initialize` through and guards `tools/list`).
 */
export function rememberChallenge(use: OAuthUse, header: string): void {
  const challenge = parseChallenge(header);
  if (!challenge.scope && !challenge.resource_metadata) return;
  const resource = resourceOf(use.url);
  try {
    writeFileAtomic(
      challengePath(use.dir, resource),
      JSON.stringify({ resource, header }) + "\n",
    );
  } catch {
    // A hint only: sign-in discovers without it.
  }
}

function rememberedChallenge(use: OAuthUse): Record<string, string> {
  const resource = resourceOf(use.url);
  try {
    const kept = JSON.parse(Deno.readTextFileSync(challengePath(use.dir, resource)));
    return kept.resource === resource ? parseChallenge(String(kept.header)) : {};
  } catch {
    return {};
  }
}

/** The parameters of a `Bearer` or `DPoP` challenge (`resource_metadata`, `scope`, `error`). */
export function parseChallenge(header: string): Record<string, string> {
  const out: Record<string, string> = {};
  const bearer = /(?:bearer|dpop)\s+(.*)$/i.exec(header);
  if (!bearer) return out;
  for (const m of bearer[1].matchAll(/([\w-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g)) {
    out[m[1].toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3];
  }
  return out;
}

/** What discovery found for one resource. */
export interface Discovery {
  resource: string;
  issuer: string;
  /** The authorization server's metadata (RFC 8414 or OpenID Connect discovery). */
  server: Record<string, unknown>;
  /** Scopes to ask for: configured, else the challenge's, else the resource's `scopes_supported`. */
  scopes?: string[];
}

/**
 * Finds the authorization server of an MCP endpoint: an unauthenticated request's
 * `WWW-Authenticate` names the protected-resource metadata (RFC 9728), else its well-known URL
 * is tried; then the issuer's metadata at the RFC 8414 and OpenID Connect well-known URLs,
 * whose `issuer` must be the issuer named.
 */
export async function discover(use: OAuthUse): Promise<Discovery> {
  const f = reaching(use.fetch ?? fetch);
  const endpoint = new URL(use.url);
  const probe = await f(endpoint, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "mcpx", version: "0" },
      },
    }),
  });
  await probe.body?.cancel();
  const challenge = probe.status === 401
    ? parseChallenge(wwwAuthenticate(probe))
    : rememberedChallenge(use);
  const path = endpoint.pathname === "/" ? "" : endpoint.pathname;
  const candidates = challenge.resource_metadata ? [challenge.resource_metadata] : [
    `${endpoint.origin}/.well-known/oauth-protected-resource${path}`,
    `${endpoint.origin}/.well-known/oauth-protected-resource`,
  ];
  const prm = await firstJson(f, candidates);
  if (!prm) {
    throw new McpxError(
      "CREDENTIALS_MISSING",
      `Server "${use.namespace}" publishes no OAuth protected-resource metadata (tried ${
        candidates.join(", ")
      })`,
    );
  }
  const resource = typeof prm.resource === "string" ? prm.resource : resourceOf(use.url);
  if (!sameResource(resource, use.url)) {
    throw new McpxError(
      "CREDENTIALS_MISSING",
      `Server "${use.namespace}": its protected-resource metadata names resource "${resource}", not "${use.url}"`,
    );
  }
  const servers = Array.isArray(prm.authorization_servers) ? prm.authorization_servers : [];
  const issuer = servers.find((s): s is string => typeof s === "string");
  if (!issuer) {
    throw new McpxError(
      "CREDENTIALS_MISSING",
      `Server "${use.namespace}": its protected-resource metadata names no authorization server`,
    );
  }
  const server = await firstJson(f, metadataUrls(issuer));
  if (!server) {
    throw new McpxError(
      "CREDENTIALS_MISSING",
      `Authorization server "${issuer}" publishes no metadata`,
    );
  }
  if (server.issuer !== issuer) {
    throw new McpxError(
      "CREDENTIALS_MISSING",
      `Authorization server "${issuer}" publishes metadata for issuer "${server.issuer}"`,
    );
  }
  const supported = Array.isArray(prm.scopes_supported) ? prm.scopes_supported as string[] : [];
  const scopes = use.client?.scopes ??
    (challenge.scope ? challenge.scope.split(/\s+/).filter(Boolean) : undefined) ??
    (supported.length ? supported : undefined);
  return { resource, issuer, server, ...(scopes ? { scopes } : {}) };
}

function sameResource(resource: string, url: string): boolean {
  try {
    const a = new URL(resource);
    const b = new URL(url);
    // The resource may be the endpoint or a prefix of it (a path above it on the same origin).
    return a.origin === b.origin &&
      (b.pathname === a.pathname || b.pathname.startsWith(a.pathname.replace(/\/?$/, "/")));
  } catch {
    return false;
  }
}

/** RFC 8414 and OpenID Connect well-known URLs of an issuer, in the order MCP gives them. */
export function metadataUrls(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname === "/" ? "" : u.pathname.replace(/\/$/, "");
  if (!path) {
    return [
      `${u.origin}/.well-known/oauth-authorization-server`,
      `${u.origin}/.well-known/openid-configuration`,
    ];
  }
  return [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${u.origin}/.well-known/openid-configuration${path}`,
    `${u.origin}${path}/.well-known/openid-configuration`,
  ];
}

async function firstJson(f: Fetch, urls: string[]): Promise<Record<string, unknown> | undefined> {
  for (const url of urls) {
    let response: Response;
    try {
      response = await f(url, { headers: { accept: "application/json" } });
    } catch {
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      continue;
    }
    try {
      const body = await response.json();
      if (body && typeof body === "object" && !Array.isArray(body)) return body;
    } catch {
      // Not JSON: the next candidate.
    }
  }
  return undefined;
}
