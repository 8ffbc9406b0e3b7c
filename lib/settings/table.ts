/** The kinds of value a setting holds. */
export type SettingType = "string" | "path" | "boolean" | "integer" | "duration" | "enum";

/** One knob, declared once; its file path, variable and flag are derived from the key. */
export interface SettingSpec {
  readonly type: SettingType;
  /** The default, written as a user would type it; it goes through the same parser as overrides. */
  readonly default: string;
  /** One sentence: what the setting controls. */
  readonly doc: string;
  /** A paragraph: when and why to change it. */
  readonly detail?: string;
  /** For `enum`: the accepted values. */
  readonly values?: readonly string[];
  /** Other environment spellings accepted for the same setting (each is one more spelling). */
  readonly envAliases?: readonly string[];
  /** The flag, when it is not the derived `--a-b` spelling. */
  readonly flag?: string;
  /**
   * What the flag means given without a value (`--log-source` alone): when it has no `=value`
   * and the next word is not one of `values`.
   */
  readonly bare?: string;
  /** Settings needed before configuration files are found are read from variables and flags only. */
  readonly early?: boolean;
  /**
   * Layers rather than replaces: a file may give a list of sources, `null` standing for the value
   * of the layers below; in a variable or a flag, a line holding only `-` stands for it.
   */
  readonly splice?: boolean;
  /**
   * In a file, a list whose items are text or objects with a `spec` (and a `name`): the setting's
   * value is their text, `name=spec`, comma-separated (what an object says besides is its owner's).
   */
  readonly items?: boolean;
}

/** Every setting mcpx has. Keys are dotted paths in a configuration file. */
export const SETTINGS = {
  "config": {
    type: "path",
    default: "",
    doc: "Configuration file to load instead of searching for one",
    detail:
      "When empty, mcpx searches .mcpx.json, .mcpx/config.json and .mcp.json upward from the working directory, then the user and system locations. Read before any file, so it comes from the environment or a flag only.",
    early: true,
  },
  "trust.all": {
    type: "boolean",
    default: "false",
    doc: "Trust every configuration file without `mcpx trust`, as in a throwaway container or CI",
    detail:
      "Without it, a configuration outside your own locations (the mcpx folder of your config directory, your home directory's own files, /etc/mcpx) must be trusted once with `mcpx trust <path>` before it starts a server, names a script or applies a setting; a file named with --config or MCPX_CONFIG counts as trusted. A file another user owns, or that group or others may write, is never trusted, this setting or not. Read before any file, so it comes from the environment (MCPX_TRUST_ALL=1) or a flag only.",
    early: true,
  },
  "output.json": {
    type: "boolean",
    default: "false",
    doc: "Print machine-readable JSON instead of tables",
    detail: "Every command honours it. Agents should parse this form, never the tables.",
    flag: "--json",
    early: true,
  },
  "output.maxBytes": {
    type: "integer",
    default: "102400",
    doc:
      "Bytes of a result that are printed: past them, the head and a line naming a file that holds all of it",
    detail:
      "Holds what `mcpx call` prints, what a script run by `mcpx run` or `mcpx exec` writes to stdout and to stderr, and every --json document of those, so that a 20 MB tool result does not land whole in an agent's context. The whole is written to <state>/output (0600; files older than a day are removed when a new one is written), and a --json document is cut to fit and marked truncated, spilledTo and bytes. Binary content (images, audio, blob resources, binary stdout) is never printed, whatever the bound: it is saved to a file of its own, named where it would have been. 0 prints everything. A script's own tool calls always receive whole results.",
    flag: "--max-output",
  },
  "paths.state": {
    type: "path",
    default: "",
    doc: "Directory for daemon sockets, records and logs",
    detail: "Empty means $XDG_STATE_HOME/mcpx, else ~/.local/state/mcpx.",
    early: true,
  },
  "paths.config": {
    type: "string",
    default: "",
    doc: "Where configuration files are searched, comma-separated; `-` stands for the usual places",
    detail:
      "Empty searches the built-in locations: .mcpx.json, .mcpx/config.json and .mcp.json upward from the working directory, then $XDG_CONFIG_HOME/mcpx/config.json, ~/.config/mcpx/config.json, ~/.mcpx.json and /etc/mcpx/config.json. A list without `-` replaces them; `./team.json,-` puts ./team.json nearest, then the usual places. An entry is a file, or a folder searched for .mcpx.json, .mcpx/config.json, .mcp.json and config.json (not upward). The first file found defines the servers; every file found is a settings layer. An entry that does not exist is one warning. Read from the environment or a flag only (MCPX_PATHS_CONFIG, --paths-config); MCPX_CONFIG or --config names one file outright.",
    early: true,
  },
  "paths.cache": {
    type: "path",
    default: "",
    doc: "Directory for the schema cache",
    detail: "Empty means $XDG_CACHE_HOME/mcpx, else ~/.cache/mcpx.",
    early: true,
  },
  "select.profiles": {
    type: "string",
    default: "",
    doc: "Profiles whose servers join the default set (comma-separated)",
    detail:
      'A server is in the default set unless its mcpx block says "default": false (or the top-level pool block flips the baseline). Selection applies to everything derived from the server list: ls, search, types, catalog, calls.',
    flag: "--profile",
    early: true,
  },
  "select.skipDefault": {
    type: "boolean",
    default: "false",
    doc: "Leave out the default set: only the servers of the named profiles",
    flag: "--skip-default",
    early: true,
  },
  "select.allProfiles": {
    type: "boolean",
    default: "false",
    doc: "Every configured server, whatever its profiles",
    flag: "--all-profiles",
    early: true,
  },
  "registry.url": {
    type: "string",
    default: "https://registry.modelcontextprotocol.io",
    doc: "The MCP registry `mcpx registry` asks: the official one, or any implementing its API",
  },
  "catalog.budget": {
    type: "integer",
    default: "2000",
    doc: "Token budget of `mcpx catalog` when the command names none",
  },
  "catalog.bias": {
    type: "string",
    default: "",
    doc: "Words (space or comma separated) whose tools `mcpx catalog` shows first, unless --bias",
    detail:
      "Each word is scored as `mcpx search` scores it: a tool's name, its tags (mcpx.tags, mcpx.toolTags, readOnly, destructive), its namespace and its description.",
  },
  "daemon.socket": {
    type: "path",
    default: "",
    doc: "Unix socket the daemon listens on, overriding the derived per-config path",
    detail:
      "Empty derives <state>/daemons/<fingerprint>.sock, falling back to a short hashed path under $TMPDIR when that is longer than a socket path may be.",
    early: true,
  },
  "daemon.inline": {
    type: "boolean",
    default: "false",
    doc: "When no daemon answers, host one inside this command instead of starting one",
    detail:
      "The last rung of the ladder (docs/daemon.md): the daemon's own handler on a private socket for as long as the command runs, its servers stopped when it ends. For sandboxes that cannot fork a daemon, mount a writable state folder or reap children: every command starts its servers afresh, so nothing is pooled across commands. A daemon already running for the configuration is still used; a named daemon.endpoint is never passed over for it.",
    flag: "--inline",
  },
  "daemon.listen": {
    type: "string",
    default: "",
    doc:
      "A TCP host:port the daemon also serves /v1 and /mcp on, beside its unix socket (empty: none)",
    detail:
      "Every request on it must carry the listener token (`Authorization: Bearer <token>` or the x-mcpx-token header), loopback or not: daemon.token, else one generated into <state>/daemons/<fingerprint>.listen-token (mode 0600, kept across restarts). Host and Origin are checked against DNS rebinding: a Host must be an IP address, localhost or the listen host, and an Origin must be that same http origin. Port 0 picks one; `mcpx status` shows it.",
    early: true,
  },
  "daemon.listenMaxConnections": {
    type: "integer",
    default: "128",
    doc: "Most connections the daemon's TCP listeners hold at once; one more is answered 503",
    detail:
      "Applies to daemon.listen and to the web page's loopback port (`mcpx ui`), not to the unix socket. Each held connection costs the daemon a file descriptor. 0 sets no cap.",
  },
  "daemon.listenHeaderTimeout": {
    type: "duration",
    default: "10s",
    doc: "How long a TCP connection may take to send its first request's head before it is closed",
    detail: "0 waits for ever.",
  },
  "daemon.listenIdleTimeout": {
    type: "duration",
    default: "60s",
    doc:
      "How long a TCP connection may stay silent, while nothing is being answered, before it is closed",
    detail:
      "Silent means no byte either way. While the listener is answering any request (a long tool call, an event stream, which sends a keep-alive every 15 s), silent connections are kept. 0 keeps them for ever.",
  },
  "daemon.endpoint": {
    type: "string",
    default: "",
    doc:
      "The daemon to use instead of this configuration's own: http://host:port or unix:///path (empty: the local one)",
    detail:
      "Commands and scripts then send every /v1 request there, with daemon.token as a bearer token, and never start a local daemon: one that does not answer is a one-line error.",
    early: true,
  },
  "daemon.token": {
    type: "string",
    default: "",
    doc:
      "The bearer token of the daemon's TCP listener (daemon.listen), and what daemon.endpoint sends",
    detail:
      "Empty: the daemon generates one into <state>/daemons/<fingerprint>.listen-token (mode 0600) and a command on the same machine reads it from there. Read from the environment (MCPX_DAEMON_TOKEN) or a flag only, never from a configuration file.",
    early: true,
  },
  "daemon.idleExit": {
    type: "duration",
    default: "4h",
    doc: "How long an auto-started daemon waits with no requests before it exits",
    detail:
      "A daemon started deliberately with `mcpx daemon` or `mcpx start` never exits on idle. 0 disables idle exit.",
  },
  "daemon.startTimeout": {
    type: "duration",
    default: "10s",
    doc: "How long a command waits for a daemon it started to answer",
    detail:
      "Counted from when the daemon has loaded its modules: while Deno fetches them into an empty cache (a first run), the command waits (at most 10 minutes) and says so in one line on stderr after 2 s. A daemon that cannot start at all leaves what Deno said in `<state>/daemons/<key>.stderr`, and the command quotes it.",
    early: true,
  },
  "daemon.upgradeDrain": {
    type: "duration",
    default: "30s",
    doc: "How long a daemon being upgraded waits for its calls in flight before it hands over",
    detail:
      "`mcpx daemon upgrade` (docs/daemon.md): the new daemon takes every new connection at once, and the old one hands over each idle server once its own calls have finished. A call still running when this runs out keeps its server, which is stopped with the old daemon.",
  },
  "daemon.autoUpgrade": {
    type: "boolean",
    default: "true",
    doc:
      "Upgrade a running daemon of another version in place when a command of this version finds it",
    detail:
      "The daemon hands its socket and its idle servers to one of the command's version (`mcpx daemon upgrade`), so a browser logged in stays logged in. false: the command uses the daemon it finds, whatever its version, until `mcpx daemon upgrade` or `mcpx stop`.",
  },
  "daemon.maxRequestBytes": {
    type: "integer",
    default: "16777216",
    doc: "Largest request body, in bytes, the daemon reads; a larger one is answered 413",
    detail:
      "16 MiB by default: above the 10 MB tool argument mcpx supports, with room for its JSON encoding. The body is counted as it arrives, so a larger one never sits in the daemon's memory.",
  },
  "servers.envPassthrough": {
    type: "string",
    default: "",
    doc:
      "Variables passed by name from the daemon's environment to every server it starts, comma-separated",
    detail:
      "A stdio server starts with PATH, HOME, USER, LOGNAME, SHELL, TZ, TMPDIR, LANG, LANGUAGE, LC_*, the proxy and certificate variables (HTTPS_PROXY, NO_PROXY, SSL_CERT_FILE, NODE_EXTRA_CA_CERTS and the like) from the daemon's environment, then these names, then its own `env` - never the rest of the environment of whichever command started the daemon, such as its secrets or MCPX_SESSION_ID. A `${VAR}` in a server's entry reads the daemon's environment, or each calling command's when its mcpx block says \"envFrom\": \"caller\".",
  },
  "servers.roots": {
    type: "string",
    default: "",
    doc:
      "Directories every server is told it may work within (MCP roots), comma-separated; empty for the caller's working directory",
    detail:
      "A server that asks (`roots/list`) is answered with its mcpx block's \"roots\" if it has them, else these, else the working directory of the command whose call started its process. Relative paths are read from the configuration file's directory. A configuration edit that changes them sends `notifications/roots/list_changed` to the servers already running.",
  },
  "servers.logLevel": {
    type: "enum",
    values: [
      "off",
      "debug",
      "info",
      "notice",
      "warning",
      "error",
      "critical",
      "alert",
      "emergency",
    ],
    default: "info",
    doc:
      "The level asked of servers that log (`logging/setLevel`); their messages go to the daemon's log with the server's name",
  },
  "daemon.maxMessageBytes": {
    type: "integer",
    default: "67108864",
    doc:
      "Longest message, in bytes, the daemon reads from a stdio server; a longer reply fails its call",
    detail:
      "64 MiB by default. A message is one line of JSON-RPC on the server's stdout; a longer one is dropped as it arrives (never held whole), the call it answers fails at once with MESSAGE_TOO_LARGE naming this limit, and the daemon's log records it.",
  },
  "elicit.wait": {
    type: "duration",
    default: "2s",
    doc:
      "How long a call that raised a question waits for an inline answer before it exits 75 with the ticket",
    detail:
      "The question stays pending in the daemon (the server's request is held) until it is answered with `mcpx elicit answer`, declined, or its deadline passes; a script's `onElicit` / `onSample` handler answers within this wait.",
  },
  "elicit.deadline": {
    type: "duration",
    default: "10m",
    doc:
      "How long a question waits for an answer before it expires, which answers the server cancel",
  },
  "elicit.inputRounds": {
    type: "integer",
    default: "8",
    doc:
      "How many rounds of a 2026-07-28 server's input_required result one call answers before it fails",
  },
  "elicit.maxPending": {
    type: "integer",
    default: "32",
    doc:
      "How many questions may be pending at once; a server asking more has the extra ones cancelled",
  },
  "tasks.ttl": {
    type: "duration",
    default: "1h",
    doc:
      "How long each MCP task mcpx makes is kept, asked of the server as its TTL: from 1s to 24h",
    detail:
      "Every task has one; mcpx never asks for an unbounded TTL, and refuses 0 or more than 24h. The daemon keeps the server's process leased until the task ends or its TTL passes, whichever comes first, then frees it; the task's record (status, result) is kept until the TTL passes, then forgotten. A server may grant a shorter TTL than asked, and that one is kept.",
  },
  "pool.queueTimeout": {
    type: "duration",
    default: "30s",
    doc:
      "How long a call waits in a server's queue for a process before it fails, naming who holds them",
    detail:
      "A call waits when its process serves one call at a time (exclusive sharing) and is busy, or when the server already runs max processes and none of them can be stopped to make room (each is busy, or serves a named session). Waiters are served first come first served, and the wait fails with POOL_BUSY (exit 7) naming the sessions that hold the processes. It bounds the wait only, not the call (callTimeout, 60s by default, does that). In a file it sits in the top-level pool block; a server's mcpx block may set its own queueTimeout.",
  },
  "pool.evictNamed": {
    type: "boolean",
    default: "false",
    doc:
      "Stop the least recently used idle process of a named session to make room under max, instead of making newcomers wait",
    detail:
      "By default a process serving a named session (MCPX_SESSION_ID, --session, MCPX_PARENT_SESSION_ID, `mcpx session new`) is never stopped to make room: a newcomer past max waits pool.queueTimeout for one to be freed, then fails with POOL_BUSY (exit 7) naming who holds them. With true, such an idle process is stopped like any other when room is needed, least recently used first (a busy one never is), and that session's next call runs on a fresh process and is told so (`restarted`, as for every lost process): whatever it held, a page or a login, is gone. In a file it sits in the top-level pool block; a server's mcpx block may set its own evictNamed.",
  },
  "session.ttl": {
    type: "duration",
    default: "2h",
    doc:
      "How long a named session (mcpx session new) lives after its last call before its servers are stopped",
    detail:
      "The default of `mcpx session new --ttl`. The clock restarts at each call in the session; once it runs out the session's server processes are stopped and the session is marked expired (its record stays for `mcpx session show`). Between 1s and 30d: a session is never unbounded (docs/sessions.md).",
  },
  "auth.ci": {
    type: "boolean",
    default: "false",
    doc:
      "Use stored OAuth tokens only: never open a sign-in, and say which `mcpx auth login` is missing",
    detail:
      "Also on when the environment has CI=true or CI=1. Stored tokens are still refreshed; a server with none fails with one line naming `mcpx auth login <ns>`, to run where a person can sign in (keep the state directory's oauth folder).",
  },
  "auth.browser": {
    type: "boolean",
    default: "true",
    doc: "Let `mcpx auth login` open a browser where there is a display",
    detail:
      "The sign-in URL is printed either way; on a machine with no display (no DISPLAY or WAYLAND_DISPLAY on Linux), or with this off, it is only printed, and the loopback listener on 127.0.0.1 waits for the browser's redirect wherever the URL is opened.",
  },
  "logging.level": {
    type: "enum",
    values: ["trace", "debug", "info", "warn", "error", "fatal"],
    default: "info",
    doc: "Lowest level logged, by scripts and by the daemon",
    detail:
      "A script's `log.debug()` below it returns at once; records at or above it reach stderr and the JSONL log under <state>/logs. The daemon reads it when it starts.",
    envAliases: ["MCPX_LOG_LEVEL"],
    flag: "--log-level",
  },
  "logging.format": {
    type: "enum",
    values: ["text", "logfmt", "json"],
    default: "text",
    doc:
      "How log records are shown on stderr: text for people, logfmt, or json (one record a line)",
    detail:
      "Governs a script's records under `mcpx run` and `mcpx exec` and a foreground daemon's. The stored JSONL log is always JSON. On a terminal, text levels are coloured unless NO_COLOR is set.",
    flag: "--log-format",
  },
  "logging.source": {
    type: "enum",
    values: ["true", "false", "trace", "debug", "info", "warn", "error", "fatal"],
    default: "warn",
    doc: "From which level a script's records carry their call site (file:line:col)",
    detail:
      "Finding the call site costs a stack trace (microseconds), so by default only warn and above pay it. `--log-source` alone (true) records it for every level, `--log-source=error` only for error and fatal, `--log-source=false` never.",
    flag: "--log-source",
    bare: "true",
  },
  "logging.dir": {
    type: "path",
    default: "",
    doc: "Directory of the JSONL logs and their index (`mcpx log`)",
    detail:
      "Empty means <state>/logs. Read from the environment or a flag only (MCPX_LOGGING_DIR, --logging-dir), as paths.state is, so that every command and the daemon it starts agree on it.",
    early: true,
  },
  "logging.maxBytes": {
    type: "integer",
    default: "16777216",
    doc: "Size in bytes at which a JSONL log file is left for the next one",
    detail:
      "Files are only appended to: `daemon-<short>.jsonl` is followed by `daemon-<short>.1.jsonl` and so on (`runs.jsonl` likewise), never renamed or rewritten. 0 never starts a new file.",
  },
  "logging.sqlTimeout": {
    type: "duration",
    default: "10s",
    doc: "How long a `log sql` query sent to the daemon may run before it is stopped",
    detail:
      "A query over `/v1/log?sql=` (the web page, a program, `mcpx_log` through the daemon) runs in a process of its own, never on the daemon's thread, and is killed when this runs out or when its client goes away. `mcpx log sql` on a command line runs in that command's own process, which Ctrl-C ends. 0 for no limit.",
  },
  "logging.sqlMaxRows": {
    type: "integer",
    default: "10000",
    doc: "Most rows a `log sql` query answers; a query giving more is refused",
    detail:
      "Counted as the rows are read, so the rest are never computed; add a LIMIT to see the first ones. 0 for no limit.",
  },
  "logging.trace": {
    type: "boolean",
    default: "false",
    doc: "Log one line per tool call naming the server instance that served it",
    detail:
      "In the daemon's environment or configuration it traces every call; set on a command (`MCPX_TRACE=1 mcpx call …`, `mcpx run`, `mcpx exec`) it traces that command's calls and its script's, against a daemon already running without it. The record is `call.trace` in the daemon's log (`mcpx log --event call.trace`).",
    envAliases: ["MCPX_TRACE"],
  },
  "plumbing.reapInterval": {
    type: "duration",
    default: "30s",
    doc: "How often the daemon stops server instances that have been idle past their idleTimeout",
  },
  "plumbing.memoryLog": {
    type: "integer",
    default: "0",
    doc: "Every this many requests, the daemon logs its memory (`daemon.memory`); 0 never",
    detail:
      "Each record holds Deno.memoryUsage(), the resident C heap, anonymous and file-backed memory (Linux, from /proc/self/smaps) and the sizes of the pools' own tables. A daemon run with DENO_V8_FLAGS=--expose-gc collects garbage fully first, so what the record shows is what is still held (bench/daemon_growth.ts).",
  },
  "plumbing.heapSnapshots": {
    type: "path",
    default: "",
    doc: "Folder where the daemon writes a V8 heap snapshot with each `daemon.memory` record",
  },
  "plumbing.sunPathMax": {
    type: "integer",
    default: "107",
    doc: "Longest socket path, in bytes, before the short hashed fallback path is used",
    detail:
      "Linux allows 107 bytes and macOS 103. Lowering it forces the fallback, which tests use.",
  },
  "paths.apis": {
    type: "string",
    default: "",
    items: true,
    doc:
      "OpenAPI documents served as namespaces, comma-separated files or URLs (`name=` in front names one)",
    detail:
      'Read from the primary configuration file only (`"paths": { "apis": "./petstore.json, pets=https://…/openapi.json" }`), so that the daemon and `ls` see the same servers. Each document becomes a server running `mcpx api serve --spec <document>`: reads only, deprecated operations left out. Its namespace is the name given, else the file\'s or URL\'s last part without its extension. A configured server of the same name wins. Relative files are read against the configuration file\'s folder. In a file it may be a list whose items are documents or objects `{ "spec": …, "name": …, "auth": … }`, `auth` being a server entry\'s bearer, header or query credential with `${VAR}` values (docs/sources.md); credentials are never read from the document.',
  },
  "paths.scripts": {
    type: "string",
    default: "",
    doc: "Where named scripts are searched, comma-separated; `-` stands for the built-in locations",
    detail:
      "Empty searches the built-in locations: .mcpx/scripts upward from the working directory, then $XDG_CONFIG_HOME/mcpx/scripts, then ~/.config/mcpx/scripts. A list without `-` replaces them; `./mine,-` searches ./mine first and then the usual places. An entry ending in .ts, .mts, .js or .mjs names one script file. Relative entries are read against the configuration file's folder (or the working directory, from the environment or a flag).",
  },
  "paths.adapters": {
    type: "string",
    default: "",
    doc:
      "Adapter declarations (command-line programs as servers): files or folders, comma-separated",
    detail:
      'Each .json or .jsonc file declares an adapter (or `{ "adapters": [...] }`): a program and the tools that run it with declared parameters, no shell involved (docs/adapters.md). Each becomes a namespace, run by the daemon as `mcpx adapter serve <name>`. Relative entries are read against the configuration file\'s folder (or the working directory, from the environment or a flag).',
  },
  "script.runtime": {
    type: "enum",
    values: ["worker", "deno", "bun", "node"],
    default: "worker",
    doc: "Runtime that runs scripts: a Deno Worker inside mcpx, or a deno, bun or node process",
    detail:
      "worker starts no second process. A script may ask for a runtime in its first comments (`// mcpx: runtime=node`); that wins over this setting from a file or the environment, and --runtime wins over both. Node must be 22.6 or newer (type stripping).",
    flag: "--runtime",
  },
  "script.timeout": {
    type: "duration",
    default: "10m",
    doc: "How long a script may run before it and every process it started are stopped",
    detail:
      "The run then exits 124. 0 means no limit. A script may set its own (`// mcpx: timeout=30s`); --timeout wins over that.",
    flag: "--timeout",
  },
  "script.captureConsole": {
    type: "boolean",
    default: "true",
    doc: "Turn a script's console calls into log records (console.log still prints to stdout)",
    detail:
      "info, debug, warn, error, assert and trace become records at their level; log, dir, table, count, time and group print to stdout exactly as the runtime would and are also recorded, marked file-only. Raw writes (Deno.stdout.write) are never captured. --no-capture-console leaves the console as the runtime made it.",
    flag: "--capture-console",
  },
  "script.launcher": {
    type: "string",
    default: "",
    doc:
      "A launcher template to run the script in instead of the built-in one (source, a file or a folder)",
    detail:
      "The template's holes are @header @globals @console @before @prefix @import @entry @onSuccess @onError @suffix (docs/launcher.md). --no-launcher runs the script with no launcher at all.",
    flag: "--launcher",
  },
  "script.before": {
    type: "string",
    default: "",
    doc:
      "Code run before the script is imported, outside the try (source, a file or a folder); sees `script`",
    splice: true,
    flag: "--before",
  },
  "script.prefix": {
    type: "string",
    default: "",
    doc:
      "Code run inside the try, before the script is imported (source, a file or a folder); sees `script`",
    splice: true,
    flag: "--prefix",
  },
  "script.onError": {
    type: "string",
    default: "",
    doc:
      "Code run when the script throws, before the failure is reported; sees `script` and `result`",
    splice: true,
    flag: "--on-error",
  },
  "script.suffix": {
    type: "string",
    default: "",
    doc:
      "Code run in a finally once the script has ended; sees `script` and `result` (ok, value, error, ms)",
    splice: true,
    flag: "--suffix",
  },
  "script.typecheck": {
    type: "boolean",
    default: "false",
    doc: "Type-check the generated program and the script it imports instead of running them",
    detail:
      "Answers whether every import resolves before any server is started. Under node and bun it reports that it cannot, since those strip types rather than check them.",
    flag: "--typecheck",
  },
  "paths.placeholders": {
    type: "string",
    default: "",
    doc: "Files or folders declaring launcher placeholders of your own, comma-separated",
    detail:
      "A file declares @name on its first line (// @mcpx:placeholder timed(body, label)), by an exported MCPX_PLACEHOLDER constant, or by its file name. Empty by default, so that no script's file name becomes meaningful by accident.",
  },
  "plumbing.launcherPlaceholderRepeat": {
    type: "string",
    default: "",
    doc: "Launcher placeholders allowed to resolve more than once, comma-separated",
  },
  "plumbing.sourceProbePaths": {
    type: "boolean",
    default: "true",
    doc: "Read a string-shaped input (--prefix, --launcher…) naming a file or folder as that file",
  },
  "plumbing.allowTsJsOverlap": {
    type: "boolean",
    default: "false",
    doc: "Permit foo.ts beside foo.js in a scripts folder; the .ts one then runs",
  },
} as const satisfies Record<string, SettingSpec>;

/** A setting's dotted key. */
export type SettingKey = keyof typeof SETTINGS;

/**
 * `daemon.idleExit` with `sep` "_" → `daemon_idle_Exit`: a dot, and a boundary from a lowercase
 * letter or digit to an uppercase one, become `sep`. By hand: a regular expression's first use
 * costs every start ~0.15 ms, and these run at every start.
 */
function splitWords(key: string, sep: string): string {
  let out = "";
  for (let i = 0; i < key.length; i++) {
    const c = key[i];
    const prev = key[i - 1];
    if (c === ".") out += sep;
    else {
      if (
        c >= "A" && c <= "Z" && prev &&
        ((prev >= "a" && prev <= "z") || (prev >= "0" && prev <= "9"))
      ) out += sep;
      out += c;
    }
  }
  return out;
}

/** The derived environment variable: `daemon.idleExit` → `MCPX_DAEMON_IDLE_EXIT`. */
export function envName(key: string): string {
  return "MCPX_" + splitWords(key, "_").toUpperCase();
}

/** The derived flag: `daemon.idleExit` → `--daemon-idle-exit`. */
export function flagName(key: string): string {
  const spec = (SETTINGS as Record<string, SettingSpec>)[key];
  if (spec?.flag) return spec.flag;
  return "--" + splitWords(key, "-").toLowerCase();
}

/** Whether a setting is an internal switch, hidden from help and completion. */
export function isPlumbing(key: string): boolean {
  return key.startsWith("plumbing.");
}
