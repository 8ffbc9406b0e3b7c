// POSIX path helpers. The CLI avoids `node:path`: its first import starts Deno's Node
// compatibility layer, about 14 ms of every command's start-up here (hyperfine: `deno run` of a
// file importing only node:path against an empty one).

/** Joins segments with `/` and normalises the result. */
export function join(...parts: string[]): string {
  return normalize(parts.filter((p) => p !== "").join("/"));
}

/** Collapses `//`, `.` and `..`; keeps a leading `/`. */
export function normalize(path: string): string {
  const absolute = path.startsWith("/");
  const out: string[] = [];
  for (const seg of path.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!absolute) out.push("..");
    } else out.push(seg);
  }
  const body = out.join("/");
  return absolute ? "/" + body : body || ".";
}

/** The folder part of a path (`/` for a top-level entry). */
export function dirname(path: string): string {
  const p = normalize(path);
  const i = p.lastIndexOf("/");
  if (i < 0) return ".";
  return i === 0 ? "/" : p.slice(0, i);
}

/** Resolves `path` against `base` (an absolute folder), as `path.resolve(base, path)` does. */
export function resolve(base: string, path: string): string {
  return normalize(path.startsWith("/") ? path : `${base}/${path}`);
}

/** The path of a `file:` URL. */
export function fromFileUrl(url: URL): string {
  return decodeURIComponent(url.pathname);
}
