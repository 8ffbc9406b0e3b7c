/**
 * The browser's screen: six views named in the header, `]` and `[` between them. The tools view
 * is three panes (namespaces, that namespace's tools, one signature) where moving the cursor loads
 * the next pane; the other five are grids drawn by one {@linkcode Table}, each a query of the
 * {@linkcode ViewSource}. Written with `React.createElement` (as `h`), so no JSX step is needed.
 */

// @ts-types="@types/react"
import React from "react";
import { Box, type Key, Text, useApp, useInput, useWindowSize } from "ink";
import type { Grid, NamespaceItem, Row, StatsKind, ToolItem, ViewSource } from "./source.ts";
import { STATS_KINDS } from "./source.ts";
import { cellText, columnWidths, detailLines, fit, rowMatches, wrapLines } from "./format.ts";
import { messageOf } from "../errors.ts";

const h = React.createElement;
const { useEffect, useMemo, useRef, useState } = React;

/** The six views, in the order `]` walks them. */
export const VIEWS = ["tools", "log", "stats", "servers", "sessions", "storage"] as const;
/** One view's name. */
export type ViewName = (typeof VIEWS)[number];
type GridView = Exclude<ViewName, "tools">;

/** How many log records the log view holds. */
export const LOG_ROWS = 500;
/** How often the log view asks for new records while it is shown. */
const FOLLOW_MS = 1000;

/** Each grid view is a query; a new view is one more line here. */
const GRIDS: Record<GridView, (source: ViewSource, kind: StatsKind) => Promise<Grid>> = {
  log: (s) => s.log(LOG_ROWS),
  stats: (s, kind) => s.stats(kind),
  servers: (s) => s.servers(),
  sessions: (s) => s.sessions(),
  storage: (s) => s.storage(),
};

/** A mouse event of the terminal, 1-based cell coordinates (SGR encoding, lib/tui/terminal.ts). */
export interface MouseEvent {
  button: number;
  x: number;
  y: number;
  release: boolean;
}

/** What {@linkcode App} is given. */
export interface AppProps {
  source: ViewSource;
  /** Subscribes to mouse events; returns the unsubscribe. */
  mouse?: (listener: (event: MouseEvent) => void) => () => void;
  /** The view to open first. */
  initial?: ViewName;
}

type Loaded<T> = { state: "loading" } | { state: "error"; message: string } | {
  state: "ok";
  value: T;
};

interface Filter {
  open: boolean;
  text: string;
}

const NO_FILTER: Filter = { open: false, text: "" };
const NO_KEY = {} as Key;

function clamp(n: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, n));
}

/** The first line of a window of `height` rows that keeps `cursor` in view. */
function windowStart(cursor: number, count: number, height: number): number {
  if (count <= height) return 0;
  return clamp(cursor - Math.floor(height / 2), 0, count - height);
}

/** The browser. */
export function App({ source, mouse, initial }: AppProps): React.ReactElement {
  const { exit } = useApp();
  const size = useWindowSize();
  const columns = Math.max(1, size.columns);
  const rows = Math.max(3, size.rows);
  const [view, setView] = useState<ViewName>(initial ?? "tools");

  // The tools view.
  const [namespaces, setNamespaces] = useState<Loaded<NamespaceItem[]>>({ state: "loading" });
  const [nsCursor, setNsCursor] = useState(0);
  const [nsFilter, setNsFilter] = useState<Filter>(NO_FILTER);
  const [tools, setTools] = useState<{ ns: string; list: Loaded<ToolItem[]> } | undefined>();
  const [toolCursor, setToolCursor] = useState(0);
  const [toolFilter, setToolFilter] = useState<Filter>(NO_FILTER);
  const [signature, setSignature] = useState<{ key: string; text: Loaded<string> } | undefined>();
  const [pane, setPane] = useState<0 | 1>(0);

  // The grid views.
  const [grids, setGrids] = useState<Partial<Record<GridView, Loaded<Grid>>>>({});
  const [cursors, setCursors] = useState<Partial<Record<GridView, number>>>({});
  const [filters, setFilters] = useState<Partial<Record<GridView, Filter>>>({});
  const [kind, setKind] = useState<StatsKind>("calls");

  // A row opened in full.
  const [detail, setDetail] = useState<{ title: string; lines: string[] } | undefined>();
  const [detailTop, setDetailTop] = useState(0);

  // What the panes were last asked for: a reply for anything else is late, and dropped.
  const wantNs = useRef<string | undefined>(undefined);
  const wantTool = useRef<string | undefined>(undefined);
  const wantGrid = useRef<Partial<Record<GridView, number>>>({});
  const live = useRef(true);
  useEffect(() => () => void (live.current = false), []);

  const loadNamespaces = () => {
    setNamespaces((old) => old.state === "ok" ? old : { state: "loading" });
    source.namespaces().then(
      (value) => live.current && setNamespaces({ state: "ok", value }),
      (e) => live.current && setNamespaces({ state: "error", message: messageOf(e) }),
    );
  };
  useEffect(loadNamespaces, [source]);

  const nsList = useMemo(() => {
    if (namespaces.state !== "ok") return [];
    const f = nsFilter.text.toLowerCase();
    return f ? namespaces.value.filter((n) => n.name.toLowerCase().includes(f)) : namespaces.value;
  }, [namespaces, nsFilter.text]);
  const selectedNs = nsList[clamp(nsCursor, 0, nsList.length - 1)]?.name;

  const loadTools = (ns: string | undefined, again = false) => {
    wantNs.current = ns;
    wantTool.current = undefined;
    if (!again) {
      setToolCursor(0);
      setToolFilter(NO_FILTER);
      setSignature(undefined);
    }
    if (ns === undefined) return setTools(undefined);
    setTools((old) => again && old?.ns === ns ? old : { ns, list: { state: "loading" } });
    source.tools(ns).then(
      (value) => {
        if (live.current && wantNs.current === ns) setTools({ ns, list: { state: "ok", value } });
      },
      (e) => {
        if (live.current && wantNs.current === ns) {
          setTools({ ns, list: { state: "error", message: messageOf(e) } });
        }
      },
    );
  };
  useEffect(() => loadTools(selectedNs), [selectedNs, source]);

  const toolList = useMemo(() => {
    if (!tools || tools.list.state !== "ok") return [];
    const f = toolFilter.text.toLowerCase();
    return f ? tools.list.value.filter((t) => t.name.toLowerCase().includes(f)) : tools.list.value;
  }, [tools, toolFilter.text]);
  const selectedTool = tools && toolList.length
    ? toolList[clamp(toolCursor, 0, toolList.length - 1)]?.name
    : undefined;

  const loadSignature = (ns: string | undefined, tool: string | undefined) => {
    const key = ns !== undefined && tool !== undefined ? `${ns}.${tool}` : undefined;
    wantTool.current = key;
    if (key === undefined) return setSignature(undefined);
    setSignature({ key, text: { state: "loading" } });
    source.signature(ns!, tool!).then(
      (value) => {
        if (live.current && wantTool.current === key) {
          setSignature({ key, text: { state: "ok", value } });
        }
      },
      (e) => {
        if (live.current && wantTool.current === key) {
          setSignature({ key, text: { state: "error", message: messageOf(e) } });
        }
      },
    );
  };
  const toolsNs = tools?.ns;
  useEffect(
    () => loadSignature(toolsNs, selectedTool),
    [toolsNs, selectedTool, source],
  );

  const loadGrid = (v: GridView, k: StatsKind = kind) => {
    const serial = (wantGrid.current[v] ?? 0) + 1;
    wantGrid.current[v] = serial;
    inFlight.current[v] = (inFlight.current[v] ?? 0) + 1;
    const settled = () => void (inFlight.current[v] = (inFlight.current[v] ?? 1) - 1);
    setGrids((old) => old[v]?.state === "ok" ? old : { ...old, [v]: { state: "loading" } });
    GRIDS[v](source, k).finally(settled).then(
      (value) => {
        if (!live.current || wantGrid.current[v] !== serial) return;
        setGrids((old) => ({ ...old, [v]: { state: "ok", value } }));
        if (v === "log") {
          // Following: a cursor on the newest record stays on the newest.
          setCursors((old) => {
            const at = old.log;
            const prev = lastRows.current;
            lastRows.current = value.rows.length;
            return at === undefined || at >= prev - 1
              ? { ...old, log: Math.max(0, value.rows.length - 1) }
              : old;
          });
        }
      },
      (e) => {
        if (!live.current || wantGrid.current[v] !== serial) return;
        setGrids((old) => ({ ...old, [v]: { state: "error", message: messageOf(e) } }));
      },
    );
  };
  const lastRows = useRef(0);
  const inFlight = useRef<Partial<Record<GridView, number>>>({});
  useEffect(() => {
    if (view === "tools") return;
    if (!grids[view]) loadGrid(view);
    if (view !== "log") return;
    // The next look only once the last has answered: a slow index never piles up queries.
    const timer = setInterval(() => !inFlight.current.log && loadGrid("log"), FOLLOW_MS);
    return () => clearInterval(timer);
  }, [view, source]);

  const gridRows = (v: GridView): Row[] => {
    const g = grids[v];
    if (g?.state !== "ok") return [];
    const f = filters[v]?.text ?? "";
    return f ? g.value.rows.filter((r) => rowMatches(r, f)) : g.value.rows;
  };

  const bodyHeight = Math.max(1, rows - 2);
  const openRow = (title: string, row: Row) => {
    setDetail({ title, lines: detailLines(row) });
    setDetailTop(0);
  };
  const openSignature = () => {
    if (signature?.text.state === "ok") {
      setDetail({ title: signature.key, lines: signature.text.value.split("\n") });
      setDetailTop(0);
    }
  };

  /** The filter of the list that has focus, and its setter. */
  const focusedFilter = (): [Filter, (f: Filter) => void] | undefined => {
    if (detail) return undefined;
    if (view === "tools") {
      return pane === 0
        ? [nsFilter, (f) => {
          setNsFilter(f);
          setNsCursor(0);
        }]
        : [toolFilter, (f) => {
          setToolFilter(f);
          setToolCursor(0);
        }];
    }
    const v = view;
    return [filters[v] ?? NO_FILTER, (f) => {
      setFilters((old) => ({ ...old, [v]: f }));
      setCursors((old) => ({ ...old, [v]: 0 }));
    }];
  };

  const move = (delta: number | "home" | "end") => {
    const step = (cur: number, count: number) =>
      count === 0
        ? 0
        : delta === "home"
        ? 0
        : delta === "end"
        ? count - 1
        : clamp(cur + delta, 0, count - 1);
    if (view === "tools") {
      if (pane === 0) setNsCursor((c) => step(clamp(c, 0, nsList.length - 1), nsList.length));
      else setToolCursor((c) => step(clamp(c, 0, toolList.length - 1), toolList.length));
      return;
    }
    const v = view;
    const count = gridRows(v).length;
    setCursors((old) => ({ ...old, [v]: step(clamp(old[v] ?? 0, 0, count - 1), count) }));
  };

  // The view as the keys of one read have left it: `]]` arrives as one chunk and moves twice.
  const viewNow = useRef(view);
  viewNow.current = view;
  const switchView = (next: ViewName) => {
    viewNow.current = next;
    setDetail(undefined);
    setView(next);
  };
  const stepView = (by: 1 | -1) => {
    const i = VIEWS.indexOf(viewNow.current) + by;
    switchView(VIEWS[(i + VIEWS.length) % VIEWS.length]);
  };

  const enter = () => {
    if (view === "tools") {
      if (pane === 0) setPane(1);
      else openSignature();
      return;
    }
    const list = gridRows(view);
    const row = list[clamp(cursors[view] ?? 0, 0, list.length - 1)];
    if (row) openRow(view === "stats" ? `stats ${kind}` : view, row);
  };

  useInput((input, key) => {
    // Keys typed faster than they are read come as one string: each is a key of its own, except
    // into an open filter, which takes them all.
    const plain = input.length > 1 && !key.ctrl && !key.meta && !input.startsWith("\x1b");
    if (plain && !focusedFilter()?.[0].open) {
      for (const ch of input) onKey(ch, NO_KEY);
    } else onKey(input, key);
  });

  function onKey(input: string, key: Key) {
    const filter = focusedFilter();
    // While a filter is open every key is the filter's: a namespace with a "q" does not quit.
    if (filter && filter[0].open) {
      const [f, set] = filter;
      if (key.escape) set(NO_FILTER);
      else if (key.return) set({ open: false, text: f.text });
      else if (key.backspace || key.delete) set({ open: true, text: f.text.slice(0, -1) });
      else if (key.upArrow) move(-1);
      else if (key.downArrow) move(1);
      else if (input && !key.ctrl && !key.meta && !key.tab) {
        // deno-lint-ignore no-control-regex -- terminal control characters are what it matches
        set({ open: true, text: f.text + input.replace(/[\x00-\x1f\x7f]/g, "") });
      }
      return;
    }
    if (detail) {
      const page = Math.max(1, bodyHeight - 1);
      const last = Math.max(0, detail.lines.length - page);
      if (input === "q") return exit();
      if (key.escape || key.return || key.backspace || key.leftArrow) setDetail(undefined);
      else if (key.upArrow || input === "k") setDetailTop((t) => clamp(t - 1, 0, last));
      else if (key.downArrow || input === "j") setDetailTop((t) => clamp(t + 1, 0, last));
      else if (key.pageUp) setDetailTop((t) => clamp(t - page, 0, last));
      else if (key.pageDown || input === " ") setDetailTop((t) => clamp(t + page, 0, last));
      else if (key.home || input === "g") setDetailTop(0);
      else if (key.end || input === "G") setDetailTop(last);
      else if (input === "]" || input === "[") stepView(input === "]" ? 1 : -1);
      return;
    }
    if (input === "q") return exit();
    if (input === "]" || input === "[") return stepView(input === "]" ? 1 : -1);
    if (input === "L") return switchView("log");
    if (input === "/") {
      const f = focusedFilter();
      if (f) f[1]({ open: true, text: f[0].text });
      return;
    }
    if (key.escape) {
      const f = focusedFilter();
      if (f && f[0].text) f[1](NO_FILTER);
      return;
    }
    if (input === "r") {
      if (view === "tools") {
        loadNamespaces();
        loadTools(selectedNs, true);
        loadSignature(tools?.ns, selectedTool);
      } else loadGrid(view);
      return;
    }
    if (input === "d" && view === "stats") {
      const next = STATS_KINDS[(STATS_KINDS.indexOf(kind) + 1) % STATS_KINDS.length];
      setKind(next);
      setCursors((old) => ({ ...old, stats: 0 }));
      loadGrid("stats", next);
      return;
    }
    if (key.upArrow || input === "k") move(-1);
    else if (key.downArrow || input === "j") move(1);
    else if (key.pageUp) move(-(bodyHeight - 2));
    else if (key.pageDown) move(bodyHeight - 2);
    else if (key.home || input === "g") move("home");
    else if (key.end || input === "G") move("end");
    else if (view === "tools" && (key.leftArrow || input === "h" || (key.shift && key.tab))) {
      setPane(0);
    } else if (view === "tools" && (key.rightArrow || input === "l" || key.tab)) setPane(1);
    else if (key.return) enter();
  }

  // Widths of the tools view's panes: namespaces, tools, the signature taking the rest.
  const nsWidth = Math.max(1, Math.min(28, Math.floor(columns * 0.25)));
  const toolWidth = Math.max(1, Math.min(36, Math.floor(columns * 0.3)));
  const sigWidth = Math.max(1, columns - nsWidth - toolWidth - 2);

  // A click selects what is under it and opens it; the wheel moves the cursor.
  const clickRef = useRef<(e: MouseEvent) => void>(() => {});
  clickRef.current = (e: MouseEvent) => {
    if (e.release) return;
    if (e.button === 64 || e.button === 65) return move(e.button === 64 ? -3 : 3);
    if (e.button !== 0 || detail) return;
    // The header, then a pane's title (and a table's column names) come before the first row.
    const line = e.y - (view === "tools" ? 3 : 4);
    const g = view === "tools" ? undefined : grids[view];
    const note = g?.state === "ok" && g.value.note ? 1 : 0;
    // As many rows as List and Table draw; a click below them (the note, the footer) opens nothing.
    const listHeight = view === "tools" ? bodyHeight - 1 : Math.max(1, bodyHeight - 2 - note);
    if (line < 0 || line >= listHeight) return;
    if (view === "tools") {
      if (e.x <= nsWidth) {
        const at = windowStart(nsCursor, nsList.length, listHeight) + line;
        if (at < nsList.length) {
          setPane(0);
          setNsCursor(at);
        }
      } else if (e.x <= nsWidth + 1 + toolWidth) {
        const at = windowStart(toolCursor, toolList.length, listHeight) + line;
        if (at < toolList.length) {
          if (pane === 1 && at === toolCursor) openSignature();
          setPane(1);
          setToolCursor(at);
        }
      }
      return;
    }
    const list = gridRows(view);
    const cur = clamp(cursors[view] ?? 0, 0, list.length - 1);
    const at = windowStart(cur, list.length, listHeight) + line;
    if (at < list.length) {
      setCursors((old) => ({ ...old, [view]: at }));
      openRow(view === "stats" ? `stats ${kind}` : view, list[at]);
    }
  };
  useEffect(() => mouse?.((e) => clickRef.current(e)), [mouse]);

  // Every view named, the current one marked; too narrow for all six, the current one and where
  // it stands among them.
  const wide = 5 + VIEWS.reduce((n, v) => n + v.length + 2, 0) <= columns;
  const header = h(
    Box,
    { height: 1 },
    h(
      Text,
      { wrap: "truncate" },
      h(Text, { bold: true }, "mcpx "),
      ...(wide
        ? VIEWS.map((v) =>
          v === view ? h(Text, { key: v, inverse: true, bold: true }, `[${v}]`) : ` ${v} `
        )
        : [
          h(Text, { key: view, inverse: true, bold: true }, `[${view}]`),
          ` ${VIEWS.indexOf(view) + 1}/${VIEWS.length}`,
        ]),
    ),
  );

  let body: React.ReactElement;
  let hint: string;
  const filter = focusedFilter();
  if (detail) {
    const lines = wrapLines([detail.title, ""].concat(detail.lines), columns);
    const page = Math.max(1, bodyHeight);
    const top = clamp(detailTop, 0, Math.max(0, lines.length - page));
    body = h(
      Box,
      { flexDirection: "column", height: bodyHeight },
      ...lines.slice(top, top + page).map((l, i) =>
        h(Text, { key: i, wrap: "truncate", bold: i + top === 0 }, l || " ")
      ),
    );
    hint = `Esc back  ↑↓ scroll  ${Math.min(lines.length, top + page)}/${lines.length}  q quit`;
  } else if (view === "tools") {
    const listHeight = bodyHeight - 1;
    const nsPane = h(List, {
      title: namespaces.state === "ok"
        ? `namespaces ${nsList.length}${nsFilter.text ? ` /${nsFilter.text}` : ""}`
        : "namespaces",
      width: nsWidth,
      height: listHeight,
      focused: pane === 0,
      status: namespaces.state === "loading"
        ? "loading…"
        : namespaces.state === "error"
        ? `error: ${namespaces.message}`
        : nsList.length === 0
        ? (nsFilter.text ? "no match" : "no servers configured")
        : undefined,
      items: nsList.map((n) => n.tools === null ? `${n.name} ?` : `${n.name} ${n.tools}`),
      cursor: clamp(nsCursor, 0, nsList.length - 1),
    });
    const toolPane = h(List, {
      title: tools?.list.state === "ok"
        ? `tools ${toolList.length}${toolFilter.text ? ` /${toolFilter.text}` : ""}`
        : "tools",
      width: toolWidth,
      height: listHeight,
      focused: pane === 1,
      status: !tools
        ? ""
        : tools.list.state === "loading"
        ? `loading ${tools.ns}…`
        : tools.list.state === "error"
        ? `error: ${tools.list.message}`
        : toolList.length === 0
        ? (toolFilter.text ? "no match" : "no tools")
        : undefined,
      items: toolList.map((t) => t.name),
      cursor: clamp(toolCursor, 0, toolList.length - 1),
    });
    const sigLines = !signature
      ? []
      : signature.text.state === "loading"
      ? [`loading ${signature.key}…`]
      : signature.text.state === "error"
      ? [`error: ${signature.text.message}`]
      : signature.text.value.split("\n");
    const sigPane = h(
      Box,
      { flexDirection: "column", width: sigWidth, height: bodyHeight },
      h(Text, { bold: true, wrap: "truncate" }, fit(signature?.key ?? "signature", sigWidth)),
      ...sigLines.slice(0, listHeight).map((l, i) =>
        h(Text, { key: i, wrap: "truncate" }, fit(l.replace(/\t/g, "  "), sigWidth))
      ),
    );
    body = h(
      Box,
      { flexDirection: "row", height: bodyHeight },
      nsPane,
      h(Box, { width: 1 }),
      toolPane,
      h(Box, { width: 1 }),
      sigPane,
    );
    hint = "↑↓ move  ←→ pane  / filter  Enter open  r refresh  ] [ views  q quit";
  } else {
    const g = grids[view];
    const list = gridRows(view);
    const f = filters[view]?.text ?? "";
    body = h(Table, {
      title: `${view === "stats" ? `stats ${kind}` : view} ${list.length}${f ? ` /${f}` : ""}`,
      grid: g?.state === "ok" ? { ...g.value, rows: list } : undefined,
      status: !g || g.state === "loading"
        ? "loading…"
        : g.state === "error"
        ? `error: ${g.message}`
        : list.length === 0
        ? (f ? "no match" : "nothing yet")
        : undefined,
      cursor: clamp(cursors[view] ?? 0, 0, list.length - 1),
      width: columns,
      height: bodyHeight,
    });
    hint = `↑↓ move  / filter  Enter open  r refresh${
      view === "stats" ? "  d next report" : ""
    }  ] [ views  q quit`;
  }
  const footer = filter?.[0].open
    ? h(Text, { wrap: "truncate" }, h(Text, { color: "yellow" }, "/"), filter[0].text, "▏")
    : h(Text, { wrap: "truncate", dimColor: true }, hint);

  return h(Box, { flexDirection: "column", width: columns, height: rows }, header, body, footer);
}

interface ListProps {
  title: string;
  items: string[];
  cursor: number;
  width: number;
  height: number;
  focused: boolean;
  status?: string;
}

/** One pane's list: only the rows that fit are drawn, so 2,000 items cost what 20 do. */
function List(
  { title, items, cursor, width, height, focused, status }: ListProps,
): React.ReactElement {
  const start = windowStart(cursor, items.length, height);
  const shown = items.slice(start, start + height);
  return h(
    Box,
    { flexDirection: "column", width, height: height + 1 },
    h(Text, { bold: true, underline: focused, wrap: "truncate" }, fit(title, width)),
    ...(status !== undefined
      ? [h(Text, { key: "s", dimColor: true, wrap: "truncate" }, fit(status, width))]
      : shown.map((item, i) =>
        h(
          Text,
          {
            key: start + i,
            wrap: "truncate",
            inverse: start + i === cursor && focused,
            bold: start + i === cursor,
          },
          fit(item, width),
        )
      )),
  );
}

interface TableProps {
  title: string;
  grid?: Grid;
  cursor: number;
  width: number;
  height: number;
  status?: string;
}

/**
 * The one grid every view but tools is drawn with: a header, the rows that fit around the cursor,
 * each cell on one line and cut to its column; Enter opens the row in full.
 */
export function Table(
  { title, grid, cursor, width, height, status }: TableProps,
): React.ReactElement {
  const rows = grid?.rows ?? [];
  const listHeight = Math.max(1, height - 2 - (grid?.note ? 1 : 0));
  const start = windowStart(cursor, rows.length, listHeight);
  const shown = rows.slice(start, start + listHeight);
  const columns = useMemo(() => {
    if (grid?.columns) return grid.columns;
    const seen = new Set<string>();
    for (const r of rows.slice(0, 50)) for (const k of Object.keys(r)) seen.add(k);
    return [...seen];
  }, [grid]);
  const cells = shown.map((r) => columns.map((c) => cellText(r[c])));
  const widths = columnWidths(columns, cells, width);
  const line = (vals: string[]) => vals.map((v, i) => fit(v, widths[i])).join(" ");
  return h(
    Box,
    { flexDirection: "column", width, height },
    h(Text, { bold: true, wrap: "truncate" }, fit(title, width)),
    h(Text, { bold: true, dimColor: true, wrap: "truncate" }, fit(line(columns), width)),
    ...(status !== undefined
      ? [h(Text, { key: "s", dimColor: true, wrap: "truncate" }, fit(status, width))]
      : cells.map((c, i) =>
        h(
          Text,
          { key: start + i, wrap: "truncate", inverse: start + i === cursor },
          fit(line(c), width),
        )
      )),
    ...(grid?.note
      ? [
        h(Box, { key: "gap", flexGrow: 1 }),
        h(Text, { key: "n", dimColor: true, wrap: "truncate" }, fit(grid.note, width)),
      ]
      : []),
  );
}
