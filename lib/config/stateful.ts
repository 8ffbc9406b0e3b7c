// Servers known to hold per-caller state, recognised from a server entry's command and
// arguments. The one table of them: a server found here is leased `exclusive` + `session` unless
// its configuration says otherwise (docs/pools.md, "Servers that keep state"), and `mcpx doctor`
// names one whose configuration shares it between callers.

/** One kind of stateful server, and how an entry starting it is recognised. */
interface StatefulKind {
  /** What it is, for people: "a browser". */
  what: string;
  /** What a caller would lose to, or see of, another caller sharing the process ("whose …"). */
  state: string;
  /** npm package names (`npx -y <pkg>@latest`, `node …/node_modules/<pkg>/…`, `npm:<pkg>`). */
  packages: readonly string[];
  /** Executables the packages install (`mcp-server-playwright`, `…/.bin/playwright-mcp`). */
  bins: readonly string[];
  /** Container images (`docker run -i --rm mcp/puppeteer`), without a tag. */
  images: readonly string[];
  /**
   * The flag without which two of its processes cannot run at once (each opens one profile
   * folder under $HOME: "Browser is already in use"), and the variable that may stand for it.
   */
  isolate?: { flag: string; env?: string };
}

const BROWSER = "a browser";
const PAGES = "pages, tabs, cookies and logins belong to the caller that opened them";

/** The table. Add a server here, with a test in stateful_test.ts; nowhere else. */
export const STATEFUL_SERVERS: readonly StatefulKind[] = [
  {
    what: BROWSER,
    state: PAGES,
    packages: ["@playwright/mcp", "@executeautomation/playwright-mcp-server"],
    bins: ["playwright-mcp", "mcp-server-playwright"],
    images: ["mcr.microsoft.com/playwright/mcp", "mcp/playwright"],
    isolate: { flag: "--isolated", env: "PLAYWRIGHT_MCP_ISOLATED" },
  },
  {
    what: BROWSER,
    state: PAGES,
    packages: ["chrome-devtools-mcp"],
    bins: ["chrome-devtools-mcp"],
    images: [],
    isolate: { flag: "--isolated" },
  },
  {
    what: BROWSER,
    state: PAGES,
    packages: [
      "@modelcontextprotocol/server-puppeteer",
      "puppeteer-mcp-server",
      "@hisma/server-puppeteer",
    ],
    bins: ["mcp-server-puppeteer", "puppeteer-mcp-server"],
    images: ["mcp/puppeteer"],
  },
  {
    what: BROWSER,
    state: PAGES,
    packages: [
      "@browsermcp/mcp",
      "@browserbasehq/mcp",
      "@browserbasehq/mcp-server-browserbase",
      "@agent-infra/mcp-server-browser",
    ],
    bins: ["mcp-server-browserbase", "mcp-server-browser"],
    images: [],
  },
];

/** What {@linkcode statefulServer} found: which kind, named by the word that matched. */
export interface StatefulMatch {
  /** The package, executable or image that matched, as the table spells it. */
  name: string;
  what: string;
  state: string;
  isolate?: { flag: string; env?: string };
}

/** `@scope/name@1.2.3` → `@scope/name`, `name@latest` → `name`; `npm:` dropped. */
function packageName(word: string): string {
  const bare = word.replace(/^npm:/, "");
  const m = /^(@[^/@]+\/[^/@]+|[^/@]+)(@[^/]*)?$/.exec(bare);
  return m ? m[1] : bare;
}

/** The package a path inside `node_modules` belongs to: `…/node_modules/@a/b/cli.js` → `@a/b`. */
function packageOfPath(path: string): string | undefined {
  const at = path.lastIndexOf("node_modules/");
  if (at < 0) return undefined;
  const parts = path.slice(at + "node_modules/".length).split("/");
  if (parts[0] === ".bin") return undefined;
  return parts[0].startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/** `/usr/local/bin/playwright-mcp.cmd` → `playwright-mcp`. */
function executableName(word: string): string {
  const base = word.split(/[/\\]/).at(-1) ?? word;
  return base.replace(/\.(c?m?js|cmd|exe|ps1)$/i, "");
}

/**
 * The stateful kind a server entry starts, if the table knows it: any word of its command and
 * arguments (an option's `=value` too) that is one of the table's packages (with or without a
 * version), executables (by their file name) or images (with or without a tag). Words are
 * compared whole, so an argument merely mentioning a browser (`--executable-path
 * /usr/bin/chromium`) is not a match.
 */
export function statefulServer(
  entry: { command?: string; args?: readonly string[] },
): StatefulMatch | undefined {
  if (entry.command === undefined) return undefined;
  const words: string[] = [];
  for (const w of [entry.command, ...(entry.args ?? [])]) {
    if (w.startsWith("-")) {
      const eq = w.indexOf("=");
      if (eq > 0) words.push(w.slice(eq + 1));
      continue;
    }
    words.push(w);
  }
  for (const word of words) {
    for (const kind of STATEFUL_SERVERS) {
      const found = (name: string) => ({
        name,
        what: kind.what,
        state: kind.state,
        ...(kind.isolate ? { isolate: kind.isolate } : {}),
      });
      const pkg = packageOfPath(word) ?? packageName(word);
      const byPackage = kind.packages.find((p) => p === pkg);
      if (byPackage) return found(byPackage);
      const bin = kind.bins.find((b) => b === executableName(word));
      if (bin) return found(bin);
      const image = kind.images.find((i) => i === word.replace(/(:[^/:]+|@sha256:.*)$/, ""));
      if (image) return found(image);
    }
  }
  return undefined;
}

/** Why a recognised server is leased `exclusive` + `session` by default: one line. */
export function statefulReason(match: StatefulMatch): string {
  return `${match.name} is ${match.what}, whose ${match.state}`;
}

/**
 * The flag a recognised server's entry lacks for two of its processes to run at once, if any:
 * neither in its arguments (`--isolated`, `--isolated=true`) nor as the variable in its `env`.
 */
export function missingIsolation(
  match: StatefulMatch,
  entry: { args?: readonly string[]; env?: Record<string, string> },
): string | undefined {
  const need = match.isolate;
  if (!need) return undefined;
  const given = (entry.args ?? []).some((a) => a === need.flag || a.startsWith(`${need.flag}=`));
  const byEnv = need.env !== undefined && /^(1|true)$/i.test(entry.env?.[need.env] ?? "");
  return given || byEnv ? undefined : need.flag;
}
