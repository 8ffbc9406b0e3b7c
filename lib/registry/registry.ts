// The MCP registry's published API (`/v0.1/servers`), and turning one of its entries into an
// `mcpServers` entry (docs/registry.md).

import { McpxError, messageOf } from "../errors.ts";
import { toNamespace } from "../names.ts";
import { load } from "../_load.ts";

/** The most a registry answer may be; a bigger one is refused, not read. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** One input of an argument, header or URL: `{name}` in a value. */
export interface RegistryInput {
  description?: string;
  isRequired?: boolean;
  isSecret?: boolean;
  default?: string;
  value?: string;
  format?: string;
  choices?: string[];
  variables?: Record<string, RegistryInput>;
}

export interface RegistryArgument extends RegistryInput {
  type: "positional" | "named";
  name?: string;
  valueHint?: string;
  isRepeated?: boolean;
}

export interface RegistryKeyValue extends RegistryInput {
  name: string;
}

export interface RegistryPackage {
  registryType: string;
  registryBaseUrl?: string;
  identifier: string;
  version?: string;
  fileSha256?: string;
  runtimeHint?: string;
  transport?: { type: string; url?: string; headers?: RegistryKeyValue[] };
  runtimeArguments?: RegistryArgument[];
  packageArguments?: RegistryArgument[];
  environmentVariables?: RegistryKeyValue[];
}

export interface RegistryRemote {
  type: string;
  url: string;
  headers?: RegistryKeyValue[];
  variables?: Record<string, RegistryInput>;
}

export interface RegistryServer {
  name: string;
  description?: string;
  version?: string;
  title?: string;
  repository?: { url?: string };
  websiteUrl?: string;
  packages?: RegistryPackage[];
  remotes?: RegistryRemote[];
}

export interface RegistryEntry {
  server: RegistryServer;
  status: string;
  isLatest?: boolean;
  publishedAt?: string;
}

const OFFICIAL = "io.modelcontextprotocol.registry/official";

function unavailable(url: string, why: string): McpxError {
  return new McpxError("REGISTRY_UNAVAILABLE", `Registry at ${url} ${why}`, {
    hint: "Check registry.url (MCPX_REGISTRY_URL), or try again later",
  });
}

/** GETs one registry path, refusing errors, non-JSON and oversized answers in one line each. */
export async function registryGet(
  base: string,
  path: string,
  fetcher: typeof fetch = fetch,
): Promise<unknown> {
  const url = base.replace(/\/+$/, "") + path;
  let res: Response;
  try {
    res = await fetcher(url, { headers: { accept: "application/json" } });
  } catch (e) {
    throw unavailable(url, `cannot be reached: ${messageOf(e)}`);
  }
  if (res.status === 404) {
    await res.body?.cancel();
    return undefined;
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw unavailable(url, `answered HTTP ${res.status}`);
  }
  const length = Number(res.headers.get("content-length") ?? "0");
  if (length > MAX_BODY_BYTES) {
    await res.body?.cancel();
    throw unavailable(url, `answered ${length} bytes, more than the ${MAX_BODY_BYTES} read`);
  }
  const bytes = await readAtMost(
    res,
    MAX_BODY_BYTES,
    () => unavailable(url, `answered more than the ${MAX_BODY_BYTES} bytes read`),
  );
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw unavailable(url, "answered something that is not JSON");
  }
}

function entryOf(raw: unknown): RegistryEntry | undefined {
  const r = raw as { server?: RegistryServer; _meta?: Record<string, Record<string, unknown>> };
  if (!r || typeof r !== "object" || !r.server || typeof r.server.name !== "string") {
    return undefined;
  }
  const meta = r._meta?.[OFFICIAL] ?? {};
  return {
    server: r.server,
    status: typeof meta.status === "string" ? meta.status : "active",
    ...(typeof meta.isLatest === "boolean" ? { isLatest: meta.isLatest } : {}),
    ...(typeof meta.publishedAt === "string" ? { publishedAt: meta.publishedAt } : {}),
  };
}

function entriesOf(base: string, body: unknown): RegistryEntry[] {
  const list = (body as { servers?: unknown } | null)?.servers;
  if (!Array.isArray(list)) throw unavailable(base, "answered without a servers list");
  return list.map(entryOf).filter((e): e is RegistryEntry => e !== undefined);
}

/** `GET /v0.1/servers?search=…`: active entries, following the cursor up to `limit`. */
export async function searchRegistry(
  base: string,
  words: string,
  limit: number,
  fetcher?: typeof fetch,
): Promise<RegistryEntry[]> {
  const found: RegistryEntry[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 20 && found.length < limit; page++) {
    const q = new URLSearchParams({ search: words, limit: String(Math.min(limit, 100)) });
    if (cursor) q.set("cursor", cursor);
    const body = await registryGet(base, `/v0.1/servers?${q}`, fetcher);
    if (body === undefined) throw unavailable(base, "has no /v0.1/servers");
    found.push(...entriesOf(base, body).filter((e) => e.status === "active"));
    cursor = (body as { metadata?: { nextCursor?: string } }).metadata?.nextCursor;
    if (!cursor) break;
  }
  return found.slice(0, limit);
}

/** One server's entry: `version` or its latest active one. @throws {McpxError} NOT_FOUND */
export async function showRegistry(
  base: string,
  name: string,
  version?: string,
  fetcher?: typeof fetch,
): Promise<RegistryEntry> {
  const path = `/v0.1/servers/${encodeURIComponent(name)}/versions`;
  const notFound = () =>
    new McpxError(
      "NOT_FOUND",
      `Registry has no active server "${name}"${version ? ` at version "${version}"` : ""}`,
      { hint: "`mcpx registry search <words>` lists the names" },
    );
  if (version) {
    const body = await registryGet(base, `${path}/${encodeURIComponent(version)}`, fetcher);
    const entry = entryOf(body);
    if (!entry || entry.status !== "active") throw notFound();
    return entry;
  }
  const body = await registryGet(base, path, fetcher);
  if (body === undefined) throw notFound();
  const active = entriesOf(base, body).filter((e) => e.status === "active");
  const latest = active.find((e) => e.isLatest) ?? active.at(-1);
  if (!latest) throw notFound();
  return latest;
}

/** The reverse-DNS name cut to its last part, as a namespace: `io.github.x/playwright-mcp` → `playwright_mcp`. */
export function shortName(name: string): string {
  return toNamespace(name.split("/").at(-1) ?? name);
}

/** What `add` writes, and what the user still has to provide. */
export interface Translation {
  name: string;
  entry: Record<string, unknown>;
  /** Variables the entry references as `${VAR}` that the publisher marks required. */
  required: { name: string; description?: string; secret: boolean }[];
  /** Where it came from: `remote` or the package's registry type. */
  source: string;
  /** The package translated, when it is one (its `fileSha256` is checked by `verifyFile`). */
  package?: RegistryPackage;
}

export function envName(name: string): string {
  return name.replace(/[^A-Za-z0-9_]/g, "_").toUpperCase();
}

/**
 * Fills `{var}` in a value: a variable's own value or default, else a `${VAR}` reference to set
 * (named in `required` when the publisher requires it; a secret is never given a value).
 */
function fill(
  value: string,
  variables: Record<string, RegistryInput> | undefined,
  required: Translation["required"],
): string {
  return value.replace(/\{([A-Za-z_][A-Za-z0-9_.-]*)\}/g, (_, v: string) => {
    const input = variables?.[v];
    const given = input?.value ?? (input?.isSecret ? undefined : input?.default);
    if (given !== undefined) return given;
    const name = envName(v);
    if (!required.some((r) => r.name === name)) {
      required.push({
        name,
        ...(input?.description ? { description: input.description } : {}),
        secret: input?.isSecret === true,
      });
    }
    return `\${${name}}`;
  });
}

function keyValue(
  item: RegistryKeyValue,
  required: Translation["required"],
): string | undefined {
  const given = item.value ?? (item.isSecret ? undefined : item.default);
  if (given !== undefined) return fill(given, item.variables, required);
  if (!item.isRequired) return undefined;
  const name = envName(item.name);
  required.push({
    name,
    ...(item.description ? { description: item.description } : {}),
    secret: item.isSecret === true,
  });
  return `\${${name}}`;
}

function argumentsOf(list: RegistryArgument[] | undefined, required: Translation["required"]) {
  const out: string[] = [];
  for (const a of list ?? []) {
    const raw = a.value ?? a.default;
    let value = raw === undefined ? undefined : fill(raw, a.variables, required);
    if (value === undefined && a.isRequired) {
      const name = envName(a.valueHint ?? a.name ?? "value");
      required.push({
        name,
        ...(a.description ? { description: a.description } : {}),
        secret: a.isSecret === true,
      });
      value = `\${${name}}`;
    }
    if (a.type === "named") {
      if (a.name) out.push(a.name);
      if (value !== undefined) out.push(value);
    } else if (value !== undefined) out.push(value);
  }
  return out;
}

const RUNNERS: Record<string, string> = { npm: "npx", pypi: "uvx", oci: "docker" };

/**
 * The MCP bundle (`mcpb`) an entry is configured from: its first one, when the entry offers no
 * remote and no package {@linkcode translate} runs (lib/registry/mcpb.ts installs it).
 */
export function bundleOf(server: RegistryServer): RegistryPackage | undefined {
  const remote = (server.remotes ?? []).some((r) =>
    ["streamable-http", "sse", "http"].includes(r.type)
  );
  const runnable = (server.packages ?? []).some((p) =>
    p.registryType in RUNNERS && (p.transport?.type ?? "stdio") === "stdio"
  );
  if (remote || runnable) return undefined;
  return (server.packages ?? []).find((p) =>
    p.registryType === "mcpb" && (p.transport?.type ?? "stdio") === "stdio"
  );
}

/**
 * An `mcpServers` entry for a registry entry: a remote when one is offered, else the first package
 * with an ephemeral runner (`npx -y`, `uvx`, `docker run --rm -i`; the publisher's runtime hint
 * wins). npm versions are pinned; required variables become `${VAR}` references, named, never
 * given values.
 * @throws {McpxError} NOT_FOUND when the entry has nothing mcpx can run
 */
export function translate(server: RegistryServer): Translation {
  const name = shortName(server.name);
  const required: Translation["required"] = [];
  const remote = (server.remotes ?? []).find((r) =>
    ["streamable-http", "sse", "http"].includes(r.type)
  );
  if (remote) {
    const headers: Record<string, string> = {};
    for (const h of remote.headers ?? []) {
      const v = keyValue(h, required);
      if (v !== undefined) headers[h.name] = v;
    }
    const entry: Record<string, unknown> = {
      type: remote.type === "sse" ? "sse" : "http",
      url: fill(remote.url, remote.variables, required),
      ...(Object.keys(headers).length ? { headers } : {}),
    };
    return { name, entry, required, source: "remote" };
  }
  const pkg = (server.packages ?? []).find((p) =>
    p.registryType in RUNNERS && (p.transport?.type ?? "stdio") === "stdio"
  );
  if (!pkg) {
    const kinds = (server.packages ?? []).map((p) => p.registryType).join(", ") || "none";
    throw new McpxError(
      "NOT_FOUND",
      `Registry entry "${server.name}" has no remote and no npm, pypi or oci stdio package (packages: ${kinds})`,
      { hint: "Configure it by hand from its repository's instructions" },
    );
  }
  const runtimeArgs = argumentsOf(pkg.runtimeArguments, required);
  const packageArgs = argumentsOf(pkg.packageArguments, required);
  const env: Record<string, string> = {};
  for (const e of pkg.environmentVariables ?? []) {
    const v = keyValue(e, required);
    if (v !== undefined) env[e.name] = v;
  }
  const command = pkg.runtimeHint || RUNNERS[pkg.registryType];
  const v = pkg.version && pkg.version !== "latest" ? pkg.version : undefined;
  let args: string[];
  if (pkg.registryType === "npm") {
    const spec = v ? `${pkg.identifier}@${v}` : pkg.identifier;
    args = [...(command === "npx" && !runtimeArgs.includes("-y") ? ["-y"] : []), ...runtimeArgs];
    args.push(spec, ...packageArgs);
  } else if (pkg.registryType === "pypi") {
    args = [...runtimeArgs, v ? `${pkg.identifier}==${v}` : pkg.identifier, ...packageArgs];
  } else {
    const image = v && !/[:@][^/]*$/.test(pkg.identifier)
      ? `${pkg.identifier}:${v}`
      : pkg.identifier;
    // docker and podman take one spelling; another runtime hint is given the image alone.
    args = ["docker", "podman"].includes(command) ? ["run", "--rm", "-i"] : [];
    // The variables reach the container by name only: docker reads each value from its own env.
    for (const name of Object.keys(env)) args.push("-e", name);
    args.push(...runtimeArgs, image, ...packageArgs);
  }
  const entry: Record<string, unknown> = {
    command,
    args,
    ...(Object.keys(env).length ? { env } : {}),
  };
  return { name, entry, required, source: pkg.registryType, package: pkg };
}

/** The most of a package file `verifyFile` downloads to hash it. */
export const MAX_FILE_BYTES = 256 * 1024 * 1024;

/** 64 lowercase hex digits of the SHA-256 of some bytes. */
export async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** GETs a package file whole (bounded by {@linkcode MAX_FILE_BYTES}). */
export async function fetchFile(
  url: string,
  what: string,
  fetcher: typeof fetch,
): Promise<Uint8Array> {
  const fail = (why: string) =>
    new McpxError("REGISTRY_UNAVAILABLE", `Cannot check the fileSha256 of ${what}: ${url} ${why}`, {
      hint: "Try again later; the configuration was not changed",
    });
  let res: Response;
  try {
    res = await fetcher(url);
  } catch (e) {
    throw fail(`cannot be reached (${messageOf(e)})`);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw fail(`answered HTTP ${res.status}`);
  }
  return await readAtMost(
    res,
    MAX_FILE_BYTES,
    () => fail(`answered more than the ${MAX_FILE_BYTES} bytes read`),
  );
}

/** A response's body, read until it passes `max` bytes (then cancelled, and `tooMuch` thrown). */
async function readAtMost(res: Response, max: number, tooMuch: () => Error): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > max) {
      await reader.cancel();
      throw tooMuch();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) [bytes.set(c, at), at += c.length];
  return bytes;
}

/**
 * Checks a translated package's `fileSha256` against the file it names, never ignoring one: an
 * npm package's tarball (from its `registryBaseUrl`, else registry.npmjs.org) is downloaded and
 * hashed; a PyPI release's files are looked up in the PyPI JSON API, whose sha256 digests must
 * include it. Resolves to the URL checked, or undefined when the package carries no fileSha256.
 * @throws {McpxError} REGISTRY_UNAVAILABLE when the file does not match or cannot be fetched;
 *   NOT_FOUND for a package whose file mcpx cannot find (an image, or no pinned version)
 */
export async function verifyFile(
  pkg: RegistryPackage | undefined,
  fetcher: typeof fetch = fetch,
): Promise<string | undefined> {
  const want = pkg?.fileSha256?.toLowerCase();
  if (!pkg || want === undefined) return undefined;
  const what = `${pkg.registryType} package ${pkg.identifier}${
    pkg.version ? `@${pkg.version}` : ""
  }`;
  const cannot = (why: string) =>
    new McpxError("NOT_FOUND", `Cannot check the fileSha256 of ${what}: ${why}`, {
      hint: "Configure it by hand after checking the file yourself",
    });
  if (!/^[0-9a-f]{64}$/.test(want)) throw cannot(`"${pkg.fileSha256}" is not 64 hex digits`);
  const version = pkg.version && pkg.version !== "latest" ? pkg.version : undefined;
  if (!version) throw cannot("it names no version, so no one file");
  const mismatch = (found: string) =>
    new McpxError(
      "REGISTRY_UNAVAILABLE",
      `The file of ${what} does not match its fileSha256 ${want}: ${found}`,
      { hint: "The file is not the one published; the configuration was not changed" },
    );
  if (pkg.registryType === "npm") {
    const base = (pkg.registryBaseUrl ?? "https://registry.npmjs.org").replace(/\/+$/, "");
    const file = pkg.identifier.split("/").at(-1)!;
    const url = `${base}/${pkg.identifier}/-/${file}-${version}.tgz`;
    const got = await sha256(await fetchFile(url, what, fetcher));
    if (got !== want) throw mismatch(`${url} hashes to ${got}`);
    return url;
  }
  if (pkg.registryType === "pypi") {
    const base = (pkg.registryBaseUrl ?? "https://pypi.org").replace(/\/+$/, "");
    const url = `${base}/pypi/${encodeURIComponent(pkg.identifier)}/${
      encodeURIComponent(version)
    }/json`;
    let listed: unknown;
    try {
      listed = JSON.parse(new TextDecoder().decode(await fetchFile(url, what, fetcher)));
    } catch (e) {
      if (e instanceof McpxError) throw e;
      throw new McpxError(
        "REGISTRY_UNAVAILABLE",
        `Cannot check the fileSha256 of ${what}: ${url} answered something that is not JSON`,
      );
    }
    const files = (listed as { urls?: { digests?: { sha256?: string } }[] })?.urls ?? [];
    const digests = files.map((f) => f?.digests?.sha256?.toLowerCase()).filter(Boolean);
    if (!digests.includes(want)) {
      throw mismatch(`${url} lists ${digests.length ? digests.join(", ") : "no files"}`);
    }
    return url;
  }
  throw cannot(
    `an ${pkg.registryType} image is not one file mcpx can hash (pin the image by its digest instead)`,
  );
}

/**
 * The configuration text with `mcpServers.<name>` added, comments and formatting kept
 * (lib/config/edit.ts, which `config import` uses too).
 * @throws {McpxError} CONFIG_INVALID for a file that does not parse or already has the name
 */
export async function addToConfig(
  path: string,
  text: string,
  name: string,
  entry: Record<string, unknown>,
): Promise<string> {
  const { addServers } = await load<typeof import("../config/edit.ts")>(
    "../config/edit.ts",
    import.meta.url,
  );
  const out = await addServers(path, text, [{ name, entry }]);
  if (out.skipped.length > 0) {
    throw new McpxError("CONFIG_INVALID", `${path} already has a server "${name}"`, {
      hint: "Remove or rename it first; the file was not changed",
    });
  }
  return out.text;
}

/** A line diff of two texts (`-`/`+` for changed lines, with the common start and end cut). */
export function lineDiff(before: string, after: string): string {
  const a = before.split("\n");
  const b = after.split("\n");
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length, endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) [endA--, endB--];
  return [
    `@@ line ${start + 1} @@`,
    ...a.slice(start, endA).map((l) => `-${l}`),
    ...b.slice(start, endB).map((l) => `+${l}`),
  ].join("\n") + "\n";
}
