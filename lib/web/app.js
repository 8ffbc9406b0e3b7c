// The web page's script (docs/ui.md, "The web page"): six views over the daemon's /v1 routes,
// live through GET /v1/events. Plain DOM: every string a server or a log record provides goes
// into the page as text (textContent, text nodes), never as markup; the CSP requires Trusted
// Types, so an innerHTML would throw.

const VIEWS = ["tools", "log", "stats", "servers", "sessions", "storage"];
const KINDS = ["calls", "servers", "errors", "sessions", "slowest", "volume"];
/** Upper edges (ms) of the latency histogram's buckets; the last is open. */
const EDGES = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];
const TOKEN_KEY = "mcpx-ui-session";
const POLL_MS = 5000;

const state = {
  view: "tools",
  /** Which list of the tools view the arrow keys move in: `ns` or `tools`. */
  pane: "ns",
  token: null,
  namespaces: null,
  ns: null,
  tools: null,
  tool: null,
  signature: null,
  nsFilter: "",
  toolFilter: "",
  kind: "calls",
  data: {},
  open: new Set(),
  error: null,
  live: false,
};

// ---- DOM ----

/** An element: `attrs` are properties (`on*` take functions), children strings become text. */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k === "text") el.textContent = String(v);
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const main = () => document.getElementById("main");

function clip(text, n) {
  const one = String(text).replace(/\s+/g, " ").trim();
  return one.length > n ? one.slice(0, n - 1) + "…" : one;
}

function bytes(n) {
  if (n < 1024) return n + " B";
  if (n < 1024 * 1024) return (n / 1024).toFixed(1) + " KiB";
  if (n < 1024 * 1024 * 1024) return (n / (1024 * 1024)).toFixed(1) + " MiB";
  return (n / (1024 * 1024 * 1024)).toFixed(2) + " GiB";
}

function duration(ms) {
  if (ms === null || ms === undefined) return "";
  if (ms < 1000) return Math.round(ms) + "ms";
  const s = ms / 1000;
  if (s < 60) return s.toFixed(1) + "s";
  if (s < 3600) return Math.floor(s / 60) + "m" + Math.floor(s % 60) + "s";
  return Math.floor(s / 3600) + "h" + Math.floor((s % 3600) / 60) + "m";
}

function cell(v) {
  if (v === null || v === undefined) return "";
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

/** A value opened in full: strings as they are (multi-line ones indented), the rest as JSON. */
function full(record) {
  const lines = [];
  for (const [k, v] of Object.entries(record)) {
    if (typeof v === "string" && v.includes("\n")) {
      lines.push(k + ":");
      for (const l of v.split("\n")) lines.push("    " + l);
    } else if (typeof v === "string") lines.push(k + ": " + v);
    else {
      const json = JSON.stringify(v, null, 2) ?? String(v);
      lines.push(k + ": " + json.split("\n").join("\n    "));
    }
  }
  return h("pre", { class: "full" }, lines.join("\n"));
}

/**
 * The one table every grid view draws through: `columns` are [header, row → text]; a click (or
 * Enter) opens a row in full beneath it, kept open across refreshes by `key`.
 */
function grid(rows, columns, { key = (_r, i) => String(i), id, rowClass } = {}) {
  if (!rows || rows.length === 0) return h("p", { class: "note" }, "nothing yet");
  const body = h("tbody");
  rows.forEach((r, i) => {
    const k = (id ?? "grid") + ":" + key(r, i);
    const tr = h(
      "tr",
      {
        class: "row " + (rowClass ? rowClass(r) : ""),
        tabindex: "0",
        dataset: { key: k },
        onclick: () => toggle(k),
        onkeydown: (e) => e.key === "Enter" && toggle(k),
      },
      columns.map(([, f]) => {
        const text = cell(f(r));
        return h("td", { title: clip(text, 300) }, clip(text, 200));
      }),
    );
    body.append(tr);
    if (state.open.has(k)) {
      body.append(h("tr", { class: "open-row" }, h("td", { colspan: columns.length }, full(r))));
    }
  });
  return h(
    "table",
    { id },
    h("thead", {}, h("tr", {}, columns.map(([name]) => h("th", {}, name)))),
    body,
  );
}

function toggle(k) {
  if (state.open.has(k)) state.open.delete(k);
  else state.open.add(k);
  draw();
}

/** Columns for rows of unknown shape: every key, in first-seen order. */
function columnsOf(rows) {
  const keys = [];
  for (const r of rows ?? []) for (const k of Object.keys(r)) if (!keys.includes(k)) keys.push(k);
  return keys.map((k) => [k, (r) => r[k]]);
}

// ---- the daemon ----

class Unauthorized extends Error {}

async function api(path) {
  const res = await fetch(path, { headers: { authorization: "Bearer " + state.token } });
  if (res.status === 401) throw new Unauthorized("This tab's session is not this daemon's");
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new Error((body && (body.detail ?? body.title)) || "HTTP " + res.status);
  return body;
}

/** The session: from the code in the fragment (exchanged once, then dropped), else the tab's. */
async function signIn() {
  const m = /^#code=([0-9a-f]{1,64})$/.exec(location.hash);
  performance.mark("mcpx-script");
  if (m) {
    // Off the address bar and out of history before anything else runs.
    history.replaceState(null, "", location.pathname + location.search);
    const res = await fetch("/ui/session", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code: m[1] }),
    });
    if (res.ok) {
      state.token = (await res.json()).token;
      // Kept for a reload of this tab, once the first view is asked for.
      setTimeout(() => state.token && sessionStorage.setItem(TOKEN_KEY, state.token), 0);
      return true;
    }
  }
  state.token = sessionStorage.getItem(TOKEN_KEY);
  return state.token !== null;
}

function signedOut() {
  sessionStorage.removeItem(TOKEN_KEY);
  state.token = null;
  setLive("signed out", false);
  main().replaceChildren(
    h(
      "div",
      { class: "note", id: "signed-out" },
      h("p", {}, "This page needs a session from the daemon."),
      h("p", {}, "Run ", h("code", {}, "mcpx ui"), " and open the address it prints."),
    ),
  );
}

function setLive(text, on) {
  const el = document.getElementById("live");
  el.textContent = text;
  el.className = "live" + (on ? " on" : "");
}

// ---- loading ----

let loading = 0;

/** Fetches what the current view shows, then draws; a reply for a view left meanwhile is dropped. */
async function refresh() {
  const view = state.view;
  const mine = ++loading;
  try {
    const got = await load(view);
    if (mine !== loading || view !== state.view) return;
    Object.assign(state.data, got);
    state.error = null;
  } catch (e) {
    if (e instanceof Unauthorized) return signedOut();
    if (mine !== loading) return;
    state.error = e.message;
  }
  draw();
}

async function load(view) {
  switch (view) {
    case "tools": {
      const got = await api("/v1/namespaces");
      performance.mark("mcpx-namespaces");
      state.namespaces = got.namespaces;
      if (state.ns === null && got.namespaces.length) selectNamespace(got.namespaces[0].namespace);
      return {};
    }
    case "log":
      return { log: (await api("/v1/log?limit=300")).records };
    case "stats": {
      const [kind, histogram] = await Promise.all([
        api("/v1/stats?kind=" + state.kind),
        state.kind === "calls" ? api("/v1/log?sql=" + encodeURIComponent(HISTOGRAM_SQL)) : null,
      ]);
      return { stats: kind, histogram: histogram?.rows ?? state.data.histogram };
    }
    case "servers": {
      const [status, instances] = await Promise.all([
        api("/v1/status"),
        api("/v1/stats?kind=instances&limit=50"),
      ]);
      return { status, instances: instances.rows };
    }
    case "sessions": {
      const [mine, opencode] = await Promise.all([
        api("/v1/stats?kind=sessions&limit=50"),
        api("/v1/stats?kind=sessions&opencode=true&limit=50").catch(() => null),
      ]);
      return { sessions: mine.rows, opencode };
    }
    case "storage":
      return { storage: await api("/v1/storage") };
  }
  return {};
}

const HISTOGRAM_SQL = "SELECT server, tool, CASE " +
  EDGES.map((e, i) => "WHEN duration < " + e + " THEN " + i).join(" ") +
  " ELSE " + EDGES.length + " END AS bucket, count(*) AS n FROM records " +
  "WHERE event = 'call.end' AND duration IS NOT NULL GROUP BY server, tool, bucket";

async function selectNamespace(ns) {
  if (state.ns === ns && state.tools) return;
  state.ns = ns;
  state.tools = null;
  state.tool = null;
  state.signature = null;
  state.toolFilter = "";
  draw();
  try {
    const got = await api("/v1/schema?format=mcp&namespace=" + encodeURIComponent(ns));
    // The cursor moved on while this was asked: the late answer is dropped.
    if (state.ns !== ns) return;
    state.tools = got.document.tools ?? [];
  } catch (e) {
    if (e instanceof Unauthorized) return signedOut();
    if (state.ns !== ns) return;
    state.tools = [];
    state.error = e.message;
  }
  draw();
}

async function selectTool(name) {
  const ns = state.ns;
  state.tool = name;
  state.signature = null;
  draw();
  try {
    // The mcp form names each tool as `mcpx types` does (`ns.tool`).
    const got = await api("/v1/types/" + encodeURIComponent(name));
    if (state.ns !== ns || state.tool !== name) return;
    state.signature = got.declarations;
  } catch (e) {
    if (e instanceof Unauthorized) return signedOut();
    if (state.tool !== name) return;
    state.signature = "// " + e.message;
  }
  draw();
}

// ---- views ----

function draw() {
  const nav = document.getElementById("views");
  nav.replaceChildren(...VIEWS.map((v) =>
    h("button", {
      "aria-current": v === state.view ? "true" : "false",
      dataset: { view: v },
      onclick: () => go(v),
    }, v)
  ));
  const keep = document.activeElement?.id;
  const scroller = main();
  const atBottom = scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 4;
  const parts = [];
  if (state.error) parts.push(h("p", { class: "error-text", id: "error" }, state.error));
  parts.push(DRAW[state.view]());
  scroller.replaceChildren(...parts);
  document.body.dataset.view = state.view;
  // The log follows: newest last, kept in view unless the reader scrolled up.
  // Each list is drawn anew: its cursor is brought back into view.
  for (const picked of scroller.querySelectorAll('li[aria-selected="true"]')) {
    picked.scrollIntoView({ block: "nearest" });
  }
  if (state.view === "log" && (atBottom || !scroller.dataset.seen)) {
    scroller.scrollTop = scroller.scrollHeight;
    scroller.dataset.seen = "1";
  }
  const again = keep ? document.getElementById(keep) : null;
  if (again) {
    again.focus();
    if (again instanceof HTMLInputElement) {
      again.setSelectionRange(again.value.length, again.value.length);
    }
  }
  document.getElementById("hint").textContent = HINTS[state.view];
}

const HINTS = {
  tools:
    "mcpx ls · mcpx types <ns> · mcpx types <ns>.<tool>    [ ] views  ↑↓←→ cursor  / filter  r refresh",
  log: "mcpx log -f    [ ] views  r refresh  (click a row to open it)",
  stats: "mcpx stats <kind>    [ ] views  d next kind  r refresh",
  servers: "mcpx status · mcpx stats instances    [ ] views  r refresh",
  sessions: "mcpx stats sessions · mcpx stats --opencode sessions    [ ] views  r refresh",
  storage: "mcpx storage    [ ] views  r refresh",
};

function filterBox(id, value, set) {
  return h("input", {
    id,
    type: "search",
    placeholder: "filter (/)",
    value,
    oninput: (e) => {
      set(e.target.value);
      draw();
    },
  });
}

const DRAW = {
  tools() {
    const all = state.namespaces;
    const nsList = h("ul", { id: "namespaces", role: "listbox" });
    if (all === null) nsList.append(h("li", { class: "note" }, "loading…"));
    for (const n of shownNamespaces()) {
      nsList.append(h(
        "li",
        {
          role: "option",
          "aria-selected": n.namespace === state.ns ? "true" : "false",
          dataset: { ns: n.namespace },
          onclick: () => {
            state.pane = "ns";
            selectNamespace(n.namespace);
          },
        },
        h("span", { class: "count" }, n.tools === null ? n.state : String(n.tools)),
        h("span", { class: "mono" }, n.namespace),
        h("span", { class: "sub" }, n.description || n.state),
      ));
    }
    const toolList = h("ul", { id: "tools", role: "listbox" });
    if (state.ns !== null && state.tools === null) {
      toolList.append(h("li", { class: "note" }, "loading…"));
    }
    for (const t of shownTools()) {
      toolList.append(h(
        "li",
        {
          role: "option",
          "aria-selected": t.name === state.tool ? "true" : "false",
          dataset: { tool: t.name },
          onclick: () => {
            state.pane = "tools";
            selectTool(t.name);
          },
        },
        h(
          "span",
          { class: "mono" },
          t.name.startsWith(state.ns + ".") ? t.name.slice(state.ns.length + 1) : t.name,
        ),
        h("span", { class: "sub" }, t.description ?? ""),
      ));
    }
    const picked = (state.tools ?? []).find((t) => t.name === state.tool);
    const sig = h("div", { id: "signature", class: "pane" }, h("h2", {}, "signature"));
    if (state.tool === null) sig.append(h("p", { class: "note" }, "pick a tool"));
    else {
      sig.append(h("pre", { id: "declarations" }, state.signature ?? "loading…"));
      if (picked?.description) {
        sig.append(h("pre", { id: "description", class: "sub" }, picked.description));
      }
    }
    if (all !== null && !document.body.dataset.firstRender) {
      document.body.dataset.firstRender = "1";
      queueMicrotask(() => performance.mark("mcpx-first-render"));
    }
    return h(
      "div",
      { class: "panes" },
      h(
        "div",
        { class: "pane" + (state.pane === "ns" ? " active" : "") },
        h("h2", {}, "namespaces"),
        filterBox("ns-filter", state.nsFilter, (v) => (state.nsFilter = v)),
        nsList,
      ),
      h(
        "div",
        { class: "pane" + (state.pane === "tools" ? " active" : "") },
        h("h2", {}, state.ns ?? "tools"),
        filterBox("tool-filter", state.toolFilter, (v) => (state.toolFilter = v)),
        toolList,
      ),
      sig,
    );
  },

  log() {
    const records = state.data.log;
    if (!records) return h("p", { class: "note" }, "loading…");
    const known = new Set(["ts", "level", "event", "msg"]);
    return grid(records, [
      ["time", (r) => String(r.ts ?? "").slice(11, 23)],
      ["level", (r) => r.level],
      ["event", (r) => r.event],
      ["message", (r) => r.msg],
      [
        "attributes",
        (r) =>
          Object.entries(r).filter(([k]) => !known.has(k)).map(([k, v]) => k + "=" + cell(v))
            .join(" "),
      ],
    ], {
      id: "log",
      key: (r) => (r.ts ?? "") + (r.id ?? "") + (r.event ?? ""),
      rowClass: (r) => "rec level-" + r.level,
    });
  },

  stats() {
    const kinds = h(
      "div",
      { class: "kinds" },
      KINDS.map((k) =>
        h("button", {
          "aria-current": k === state.kind ? "true" : "false",
          dataset: { kind: k },
          onclick: () => setKind(k),
        }, k)
      ),
    );
    const out = state.data.stats;
    const parts = [kinds];
    if (!out || out.kind !== state.kind) parts.push(h("p", { class: "note" }, "loading…"));
    else {
      const rows = out.rows.map((r) => r);
      parts.push(grid(rows, columnsOf(rows), { id: "stats-" + out.kind }));
      if (out.disk) {
        const d = out.disk;
        parts.push(h(
          "p",
          { class: "note" },
          d.records + " records in " + d.files + " files: " + bytes(d.jsonlBytes) +
            " of JSONL, " + bytes(d.indexBytes) + " of index",
        ));
      }
      if (out.kind === "calls") parts.push(histograms(state.data.histogram ?? []));
    }
    return h("div", {}, parts);
  },

  servers() {
    const s = state.data.status;
    if (!s) return h("p", { class: "note" }, "loading…");
    const live = s.servers.flatMap((p) =>
      p.instances.map((i) => ({ namespace: p.namespace, ...i }))
    );
    return h(
      "div",
      {},
      h(
        "p",
        { class: "note" },
        "daemon " + s.pid + ", up " + duration(s.uptimeMs) + ", config " + s.config,
      ),
      h("h3", {}, "processes"),
      grid(live, [
        ["namespace", (r) => r.namespace],
        ["pid", (r) => r.pid ?? "-"],
        ["uptime", (r) => duration(r.uptimeMs)],
        ["calls", (r) => r.calls],
        ["state", (r) => (r.leases > 0 ? "busy" : r.state)],
        ["key", (r) => r.key],
        ["stderr", (r) => (r.stderrTail ?? []).at(-1) ?? ""],
      ], { id: "processes", key: (r) => r.id }),
      h("h3", {}, "servers"),
      grid(s.servers, [
        ["namespace", (r) => r.namespace],
        ["transport", (r) => r.transport],
        ["sharing", (r) => r.sharing],
        ["scope", (r) => r.scope],
        ["live", (r) => r.live],
        ["state", (r) => r.state],
        ["error", (r) => r.error ?? ""],
      ], { id: "pools", key: (r) => r.namespace }),
      h("h3", {}, "recent processes, and why each stopped"),
      grid(state.data.instances, [
        ["id", (r) => r.id],
        ["server", (r) => r.server],
        ["started", (r) => r.started],
        ["ended", (r) => r.ended ?? ""],
        ["why", (r) => r.why ?? (r.ended ? "" : "running")],
        ["calls", (r) => r.calls],
      ], { id: "instances", key: (r) => r.id }),
    );
  },

  sessions() {
    const rows = state.data.sessions;
    if (!rows) return h("p", { class: "note" }, "loading…");
    const oc = state.data.opencode;
    return h(
      "div",
      {},
      h("h3", {}, "what mcpx saw (script runs and their sessions)"),
      grid(rows, [
        ["run", (r) => r.run],
        ["script", (r) => r.script],
        ["session", (r) => r.session],
        ["started", (r) => r.started],
        ["duration", (r) => duration(r.durationMs)],
        ["exit", (r) => r.exitCode],
        ["calls", (r) => r.calls],
        ["failed", (r) => r.failedCalls ?? 0],
      ], { id: "sessions", key: (r) => r.run }),
      h("h3", {}, "what opencode recorded"),
      !oc
        ? h("p", { class: "note" }, "not available")
        : oc.missing
        ? h("p", { class: "note" }, "no opencode database at " + oc.missing)
        : grid(merged(oc.rows, rows), columnsOf(merged(oc.rows, rows)), { id: "opencode" }),
    );
  },

  storage() {
    const s = state.data.storage;
    if (!s) return h("p", { class: "note" }, "loading…");
    const most = Math.max(1, ...s.parts.map((p) => p.bytes));
    const meter = (p) => {
      const m = h("span", { class: "meter" });
      m.style.width = Math.max(1, Math.round((p.bytes / most) * 120)) + "px";
      return m;
    };
    const table = grid(s.parts, [
      ["part", (r) => r.part],
      ["size", (r) => bytes(r.bytes)],
      ["files", (r) => r.files],
      ["path", (r) => r.path],
    ], { id: "storage", key: (r) => r.path });
    // The bar beside each size: drawn after the grid, so the grid stays the one table type.
    table.querySelectorAll("tbody tr.row").forEach((tr, i) => {
      tr.children[1].prepend(meter(s.parts[i]), " ");
    });
    return h("div", {}, h("p", { class: "note" }, "total " + bytes(s.bytes)), table);
  },
};

/** opencode's sessions, each with the mcpx runs made under it (by session key). */
function merged(opencode, runs) {
  return opencode.map((o) => ({
    ...o,
    mcpxRuns: runs.filter((r) => r.session !== null && r.session === o.session).length,
  }));
}

/** One histogram per server.tool: calls per latency bucket, from the log index. */
function histograms(rows) {
  const byTool = new Map();
  for (const r of rows) {
    const name = r.server + "." + r.tool;
    if (!byTool.has(name)) byTool.set(name, new Array(EDGES.length + 1).fill(0));
    byTool.get(name)[r.bucket] += r.n;
  }
  const wrap = h("div", { class: "histograms", id: "histograms" });
  if (byTool.size === 0) wrap.append(h("p", { class: "note" }, "no timed calls yet"));
  for (const [name, counts] of [...byTool].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const most = Math.max(...counts);
    const total = counts.reduce((a, b) => a + b, 0);
    const bars = h("div", { class: "bars" });
    counts.forEach((n, i) => {
      const bar = h("div", {
        class: "bar" + (n ? "" : " empty"),
        title: n + " calls " + label(i),
        dataset: { bucket: String(i), n: String(n) },
      });
      bar.style.height = (n ? Math.max(2, Math.round((n / most) * 100)) : 0) + "%";
      bars.append(bar);
    });
    wrap.append(h(
      "div",
      { class: "histogram", dataset: { tool: name } },
      h("div", { class: "title" }, name + "  ", h("span", { class: "count" }, total + " calls")),
      bars,
      h("div", { class: "axis" }, counts.map((_, i) => h("span", {}, short(i)))),
    ));
  }
  return h("div", {}, h("h3", {}, "latency per tool"), wrap);
}

function label(i) {
  if (i === 0) return "under " + EDGES[0] + " ms";
  if (i === EDGES.length) return EDGES[i - 1] + " ms or more";
  return EDGES[i - 1] + "–" + EDGES[i] + " ms";
}

function short(i) {
  const ms = (e) => (e >= 1000 ? e / 1000 + "s" : String(e));
  return i === EDGES.length ? "≥" + ms(EDGES[i - 1]) : "<" + ms(EDGES[i]);
}

function setKind(k) {
  state.kind = k;
  draw();
  refresh();
}

function go(view) {
  if (view === state.view) return;
  state.view = view;
  state.error = null;
  main().dataset.seen = "";
  draw();
  refresh();
}

// ---- live ----

let pending;

/** Something happened: redraw the current view soon (several events, one fetch). */
function changed(type) {
  if (type === "tools.changed" || type === "gap") state.namespaces = null;
  clearTimeout(pending);
  pending = setTimeout(refresh, 100);
}

/** Follows GET /v1/events (server-sent events read from a fetch, which carries the bearer). */
async function follow() {
  let last = null;
  for (;;) {
    try {
      const res = await fetch("/v1/events" + (last === null ? "" : "?since=" + last), {
        headers: { authorization: "Bearer " + state.token },
      });
      if (res.status === 401) return signedOut();
      if (!res.ok || !res.body) throw new Error("HTTP " + res.status);
      setLive("live", true);
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let type = "message";
          for (const line of block.split("\n")) {
            if (line.startsWith("id: ")) last = Number(line.slice(4));
            else if (line.startsWith("event: ")) type = line.slice(7);
          }
          if (type === "daemon.stopping") setLive("daemon stopping", false);
          changed(type);
        }
      }
    } catch (e) {
      // The daemon went away (a restart listens elsewhere unless daemon.listen is set), or
      // has no bus: poll until it answers again.
      if (e instanceof TypeError) {
        setLive("no daemon answers: run mcpx ui again", false);
        await new Promise((r) => setTimeout(r, 2000));
        continue;
      }
    }
    if (state.token === null) return;
    setLive("polling", false);
    await new Promise((r) => setTimeout(r, 2000));
  }
}

document.addEventListener("keydown", (e) => {
  const typing = e.target instanceof HTMLInputElement;
  if (typing) {
    if (e.key === "Escape") e.target.blur();
    return;
  }
  if (e.key === "]" || e.key === "[") {
    const i = VIEWS.indexOf(state.view) + (e.key === "]" ? 1 : -1);
    go(VIEWS[(i + VIEWS.length) % VIEWS.length]);
  } else if (e.key === "r") refresh();
  else if (e.key === "d" && state.view === "stats") {
    setKind(KINDS[(KINDS.indexOf(state.kind) + 1) % KINDS.length]);
  } else if (e.key === "/" && state.view === "tools") {
    e.preventDefault();
    document.getElementById(state.pane === "ns" ? "ns-filter" : "tool-filter")?.focus();
  } else if (state.view === "tools" && e.key.startsWith("Arrow")) {
    e.preventDefault();
    cursor(e.key);
  }
});

/**
 * The arrow keys in the tools view: up and down move the cursor in the namespaces or the tools,
 * loading the next pane as it moves; right and left move between the two lists.
 */
function cursor(key) {
  if (key === "ArrowRight" || key === "ArrowLeft") {
    state.pane = key === "ArrowRight" ? "tools" : "ns";
    if (state.pane === "tools" && state.tool === null && state.tools?.length) {
      return selectTool(shownTools()[0].name);
    }
    return draw();
  }
  const step = key === "ArrowDown" ? 1 : key === "ArrowUp" ? -1 : 0;
  if (!step) return;
  const list = state.pane === "ns"
    ? shownNamespaces().map((n) => n.namespace)
    : shownTools().map((t) => t.name);
  if (!list.length) return;
  const at = list.indexOf(state.pane === "ns" ? state.ns : state.tool);
  const next = list[Math.min(list.length - 1, Math.max(0, at + step))];
  if (state.pane === "ns") selectNamespace(next);
  else selectTool(next);
}

function shownNamespaces() {
  return (state.namespaces ?? []).filter((n) => n.namespace.includes(state.nsFilter));
}

function shownTools() {
  return (state.tools ?? []).filter((t) => t.name.includes(state.toolFilter));
}

async function start() {
  // Nothing is drawn before the session is known (the header says "connecting…"): a first frame
  // painted meanwhile held the next request back by tens of milliseconds (bench/ui.ts).
  if (!(await signIn())) return signedOut();
  await refresh();
  if (state.token === null) return;
  follow();
  // What the bus does not carry (a script run's own log, opencode's database) is polled.
  setInterval(() => {
    if (state.token !== null && state.view !== "tools" && !document.hidden) refresh();
  }, POLL_MS);
}

start();
