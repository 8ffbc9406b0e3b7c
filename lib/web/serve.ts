// The web page's own routes (docs/ui.md, "The web page"): `/ui` (index.html), `/ui/app.js`,
// `/ui/app.css`, and `POST /ui/session`, which trades `mcpx ui`'s one-time code for a page
// session. The files sit beside this module and are read relative to it, so the sources, the
// bundle (tools/build.ts points import.meta.url back here) and `deno compile --include lib/`
// all serve the same ones; nothing is built.

import { McpxError, toProblem } from "../errors.ts";
import type { Context } from "../context.ts";

/**
 * What the page may load and run: its own script and style only, requests to its own origin
 * only, and Trusted Types required, so that no string ever reaches `innerHTML` and the like.
 */
export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  // data: for the empty icon only: no markup is ever built from a string, so none names an image.
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join("; ");

const FILES: Record<string, { file: string; type: string }> = {
  "/ui": { file: "index.html", type: "text/html; charset=utf-8" },
  "/ui/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/ui/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/ui/app.css": { file: "app.css", type: "text/css; charset=utf-8" },
};

const texts = new Map<string, Promise<string>>();

/** The headers every answer of the page carries. */
function headers(type: string): Headers {
  return new Headers({
    "content-type": type,
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
  });
}

function problem(error: McpxError): Response {
  const body = toProblem(error);
  const h = headers("application/problem+json");
  return new Response(JSON.stringify(body), { status: body.status, headers: h });
}

/** The answer to a request under `/ui`. */
export async function pageResponse(req: Request, ctx: Context): Promise<Response> {
  const path = new URL(req.url).pathname;
  if (path === "/ui/session") {
    if (req.method !== "POST") {
      return problem(new McpxError("USAGE", `${req.method} is not allowed on ${path}: use POST`));
    }
    // A page of this origin sends one (the listener has checked it is this one's); a request
    // without any is no browser page's.
    if (req.headers.get("origin") === null) {
      return problem(new McpxError("FORBIDDEN", "The code exchange must come from the page"));
    }
    let code: unknown;
    try {
      code = (JSON.parse(await req.text()) as { code?: unknown }).code;
    } catch {
      code = undefined;
    }
    const session = typeof code === "string" && code.length <= 64
      ? ctx.daemon?.ui?.exchange(code)
      : undefined;
    if (!session) {
      return problem(
        new McpxError("UNAUTHORIZED", "The page's code is unknown, used or expired", {
          hint: "Run `mcpx ui` for a new address",
        }),
      );
    }
    return new Response(JSON.stringify({ token: session }), {
      headers: headers("application/json"),
    });
  }
  const found = FILES[path];
  if (!found) return problem(new McpxError("NOT_FOUND", `No page ${path}`));
  if (req.method !== "GET" && req.method !== "HEAD") {
    return problem(new McpxError("USAGE", `${req.method} is not allowed on ${path}: use GET`));
  }
  let text = texts.get(found.file);
  if (!text) {
    texts.set(found.file, text = Deno.readTextFile(new URL(found.file, import.meta.url)));
  }
  return new Response(await text, { headers: headers(found.type) });
}
