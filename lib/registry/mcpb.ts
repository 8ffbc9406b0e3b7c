// An MCP bundle (`.mcpb`) from a registry entry: downloaded, held to the entry's fileSha256, read
// (its manifest.json says how its server starts) and, for `registry add --write`, unpacked into
// the state directory, where the configured entry points (docs/registry.md, "MCP bundles").

import { join } from "../_path.ts";
import { McpxError, messageOf } from "../errors.ts";
import {
  envName,
  fetchFile,
  type RegistryPackage,
  type RegistryServer,
  sha256,
  shortName,
  type Translation,
} from "./registry.ts";
import { readZip, type ZipEntry } from "./zip.ts";

/** What `registry show` and `add` need of a bundle: its entry, and how to unpack it. */
export interface BundleTranslation extends Translation {
  /** The bundle's URL, its file matched to its fileSha256. */
  verified: string;
  /** Where it is (or will be) unpacked. */
  dir: string;
  /** Unpacks it into `dir`, unless a copy of the same bytes is already there. */
  install(): void;
}

interface UserOption {
  type?: string;
  required?: boolean;
  sensitive?: boolean;
  default?: unknown;
  title?: string;
  description?: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The file name of the marker that says which bytes a folder was unpacked from. */
const MARKER = ".mcpx-bundle-sha256";

/**
 * Downloads the bundle an entry names, checks it against its fileSha256 and reads its manifest:
 * `server.mcp_config` (or the launch its `server.type` implies) becomes the entry, `${__dirname}`
 * the folder it is unpacked to, `${user_config.x}` the option's default when it has one and is not
 * sensitive, else a `${X}` reference named in `required`.
 * @throws {McpxError} NOT_FOUND for a bundle with no fileSha256 or no URL; REGISTRY_UNAVAILABLE
 *   for one that cannot be fetched, does not match or is not a bundle mcpx can read
 */
export async function translateBundle(
  server: RegistryServer,
  pkg: RegistryPackage,
  options: { stateDir: string; fetcher?: typeof fetch },
): Promise<BundleTranslation> {
  const what = `the MCP bundle of "${server.name}"`;
  const want = pkg.fileSha256?.toLowerCase();
  if (!want || !/^[0-9a-f]{64}$/.test(want)) {
    throw new McpxError(
      "NOT_FOUND",
      `Cannot install ${what}: it carries no fileSha256 (64 hex digits) to check the file against`,
      { hint: "Configure its server by hand after checking the file yourself" },
    );
  }
  if (!/^https?:\/\//i.test(pkg.identifier)) {
    throw new McpxError(
      "NOT_FOUND",
      `Cannot install ${what}: its identifier "${pkg.identifier}" is not an http(s) URL`,
    );
  }
  const url = pkg.identifier;
  const bytes = await fetchFile(url, what, options.fetcher ?? fetch);
  const got = await sha256(bytes);
  if (got !== want) {
    throw new McpxError(
      "REGISTRY_UNAVAILABLE",
      `The file of ${what} does not match its fileSha256 ${want}: ${url} hashes to ${got}`,
      { hint: "The file is not the one published; nothing was installed or written" },
    );
  }
  const unreadable = (why: string) =>
    new McpxError("REGISTRY_UNAVAILABLE", `Cannot read ${what} (${url}): ${why}`, {
      hint: "Nothing was installed or written",
    });
  let files: ZipEntry[];
  try {
    files = readZip(bytes);
  } catch (e) {
    throw unreadable(messageOf(e));
  }
  for (const f of files) {
    if (f.name.startsWith("/") || f.name.includes("\\") || f.name.split("/").includes("..")) {
      throw unreadable(`it holds "${f.name}", a path outside its own folder`);
    }
    if ((f.mode & 0o170000) === 0o120000) throw unreadable(`"${f.name}" is a symbolic link`);
  }
  const manifestFile = files.find((f) => f.name === "manifest.json");
  if (!manifestFile) throw unreadable("it has no manifest.json");
  let manifest: unknown;
  try {
    manifest = JSON.parse(new TextDecoder().decode(manifestFile.bytes()));
  } catch {
    throw unreadable("its manifest.json is not JSON");
  }
  const block = isObject(manifest) && isObject(manifest.server) ? manifest.server : undefined;
  if (!block) throw unreadable('its manifest.json has no "server"');
  const dir = join(options.stateDir, "mcpb", `${shortName(server.name)}-${want.slice(0, 16)}`);
  const entryPoint = typeof block.entry_point === "string" ? block.entry_point : undefined;
  let launch = isObject(block.mcp_config) ? block.mcp_config : undefined;
  if (!launch && entryPoint) {
    const at = "${__dirname}/" + entryPoint;
    launch = block.type === "node"
      ? { command: "node", args: [at] }
      : block.type === "python"
      ? { command: "python3", args: [at] }
      : block.type === "binary"
      ? { command: at, args: [] }
      : undefined;
  }
  if (!launch || typeof launch.command !== "string") {
    throw unreadable(`its manifest.json says no command to start (server.mcp_config.command)`);
  }
  const userConfig = isObject(manifest) && isObject(manifest.user_config)
    ? manifest.user_config as Record<string, UserOption>
    : {};
  const required: Translation["required"] = [];
  const fill = (text: string) =>
    text.replace(/\$\{([^}]+)\}/g, (whole, key: string) => {
      if (key === "__dirname") return dir;
      if (key === "/" || key === "pathSeparator") return "/";
      if (!key.startsWith("user_config.")) return whole;
      const name = key.slice("user_config.".length);
      const option = userConfig[name] ?? {};
      const given = option.sensitive ? undefined : option.default;
      if (given !== undefined && given !== null) {
        return Array.isArray(given) ? given.join(",") : String(given);
      }
      const variable = envName(name);
      if (option.required && !required.some((r) => r.name === variable)) {
        required.push({
          name: variable,
          ...(option.description || option.title
            ? { description: String(option.description ?? option.title) }
            : {}),
          secret: option.sensitive === true,
        });
      }
      return `\${${variable}}`;
    });
  const args = Array.isArray(launch.args) ? launch.args.map((a) => fill(String(a))) : [];
  const env: Record<string, string> = {};
  if (isObject(launch.env)) {
    for (const [k, v] of Object.entries(launch.env)) env[k] = fill(String(v));
  }
  const entry: Record<string, unknown> = {
    command: fill(launch.command),
    args,
    ...(Object.keys(env).length ? { env } : {}),
  };
  return {
    name: shortName(server.name),
    entry,
    required,
    source: "mcpb",
    package: pkg,
    verified: url,
    dir,
    install: () => unpack(files, dir, want),
  };
}

/** Writes the bundle's files into `dir` whole: into a new folder first, renamed into place. */
function unpack(files: ZipEntry[], dir: string, sha: string): void {
  try {
    if (Deno.readTextFileSync(join(dir, MARKER)).trim() === sha) return;
  } catch { /* not unpacked yet */ }
  const parent = dir.slice(0, dir.lastIndexOf("/"));
  Deno.mkdirSync(parent, { recursive: true, mode: 0o700 });
  const temp = Deno.makeTempDirSync({ dir: parent, prefix: ".unpacking-" });
  try {
    for (const f of files) {
      const path = join(temp, f.name);
      Deno.mkdirSync(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      // Executable bits kept (a binary server), nothing writable by others.
      const mode = (f.mode & 0o111) !== 0 ? 0o755 : 0o644;
      Deno.writeFileSync(path, f.bytes(), { mode });
      Deno.chmodSync(path, mode);
    }
    Deno.writeTextFileSync(join(temp, MARKER), sha + "\n");
    Deno.chmodSync(temp, 0o755);
    try {
      Deno.removeSync(dir, { recursive: true });
    } catch { /* none there */ }
    Deno.renameSync(temp, dir);
  } catch (e) {
    try {
      Deno.removeSync(temp, { recursive: true });
    } catch { /* already gone */ }
    throw new McpxError(
      "CONFIG_INVALID",
      `Cannot unpack the bundle into ${dir}: ${messageOf(e)}`,
      { hint: "Check the state directory's permissions; the configuration was not changed" },
    );
  }
}
