import { McpxError } from "../errors.ts";
import { defineOperation } from "./define.ts";
import type { Context } from "../context.ts";
import { load } from "../_load.ts";
import type { BusEvent, Delivery } from "../events/bus.ts";
import { parseSse, sseLines } from "../events/sse.ts";

interface EventsInput {
  follow?: boolean;
  since?: number;
}

interface EventsOutput {
  events: Delivery[];
  followed?: number;
}

/** `mcpx events [-f] [--since N]`: the daemon's event bus, read over `GET /v1/events`. */
export const eventsList = defineOperation<EventsInput, EventsOutput>({
  id: "events.list",
  summary:
    "Print the daemon's events (servers started and stopped, calls, list changes); -f follows",
  description:
    "Without --follow it prints what the daemon retains (the last 1024 events, or those after --since) and ends. With --follow it starts the daemon if none runs and prints each event as it happens until interrupted; with --json each is one JSON line. Every event has a sequence number; a `gap` event says how many were no longer retained. Over HTTP: GET /v1/events (server-sent events; ?since=N or Last-Event-ID replays, no position is live only).",
  params: [
    {
      name: "follow",
      type: "boolean",
      short: "f",
      doc: "Keep printing events as they happen",
    },
    {
      name: "since",
      type: "integer",
      doc: "Start after this sequence number (default: everything retained, or live with -f)",
    },
  ],
  cli: {
    command: ["events"],
    examples: [["mcpx events", "The events the daemon retains"], [
      "mcpx events -f",
      "Keep printing events as they happen",
    ], ["mcpx events --since 120", "The events after sequence number 120"]],
  },
  http: { none: "GET /v1/events streams server-sent events, outside the operations table" },
  mcp: { expose: false },
  where: "local",
  output: (z) => z.object({ events: z.array(z.unknown()), followed: z.number().optional() }),
  async run(input, ctx) {
    const { callDaemon, ensureDaemon } = await load<typeof import("../daemon/client.ts")>(
      "../daemon/client.ts",
      import.meta.url,
    );
    if (input.follow) {
      await ensureDaemon(ctx);
      const since = input.since === undefined ? "" : `&since=${input.since}`;
      let followed = 0;
      await streamEvents(ctx, `/v1/events?follow=true${since}`, (d) => {
        followed++;
        ctx.io.out(ctx.json ? JSON.stringify(d) + "\n" : line(d));
      });
      return { events: [], followed };
    }
    // Whatever the daemon retains; no daemon has nothing to say.
    const answer = await callDaemon(ctx, {
      method: "GET",
      path: `/v1/events?follow=false&since=${input.since ?? 0}`,
      start: false,
    });
    if (!answer) return { events: [] };
    return { events: parseSse(String(answer.value)) };
  },
  render(out) {
    if (out.followed !== undefined) return "";
    if (out.events.length === 0) return "No events retained\n";
    return out.events.map(line).join("");
  },
  json(out) {
    return out.followed !== undefined ? { followed: out.followed } : out;
  },
});

/** One event as a line: sequence number, time, type and what it is about. */
export function line(d: Delivery): string {
  if (d.type === "gap" && !("id" in d)) {
    const g = d as { after: number; upTo: number; missed: number };
    return `gap   events ${g.after + 1}..${g.upTo} are no longer retained (${g.missed} missed)\n`;
  }
  const e = d as BusEvent;
  const about = ["session", "server", "tool", "instance", "durationMs", "reason", "error"]
    .filter((k) => e.data[k] !== undefined)
    .map((k) => `${k}=${typeof e.data[k] === "string" ? e.data[k] : JSON.stringify(e.data[k])}`)
    .join(" ");
  return `${e.id} ${e.time} ${e.type}${about ? ` ${about}` : ""}\n`;
}

/**
 * Reads `path` from the daemon's socket as a stream of server-sent events, until it ends, the
 * command is interrupted or `stop` aborts (which ends it quietly).
 */
export async function streamEvents(
  ctx: Context,
  path: string,
  each: (d: Delivery) => void,
  stop?: AbortSignal,
  opened?: () => void,
): Promise<void> {
  const { readToken } = await load<typeof import("../daemon/guard.ts")>(
    "../daemon/guard.ts",
    import.meta.url,
  );
  const paths = await ctx.paths();
  const token = readToken(paths.token);
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: paths.socket } });
  try {
    let res: Response;
    try {
      res = await fetch(`http://mcpx${path}`, {
        client,
        headers: token === undefined ? {} : { "x-mcpx-token": token },
        signal: stop && ctx.signal ? AbortSignal.any([stop, ctx.signal]) : stop ?? ctx.signal,
      });
    } catch (e) {
      if (stop?.aborted || ctx.signal?.aborted) throw e;
      throw new McpxError(
        "DAEMON_UNAVAILABLE",
        `The daemon did not answer ${path.split("?")[0]}: it stopped, or is stopping`,
        { cause: e, hint: "Run the command again: it starts a daemon" },
      );
    }
    if (!res.ok || !res.body) {
      throw new McpxError("DAEMON_UNAVAILABLE", `The daemon refused ${path}: HTTP ${res.status}`);
    }
    opened?.();
    const push = sseLines((data) => each(JSON.parse(data) as Delivery));
    for await (const chunk of res.body.pipeThrough(new TextDecoderStream())) push(chunk);
  } catch (e) {
    if (stop?.aborted) return;
    if (e instanceof McpxError || ctx.signal?.aborted) throw e;
    // The connection went from under the stream: a daemon killed, not one that stopped.
    throw new McpxError("DAEMON_UNAVAILABLE", "The daemon's event stream broke off: it went away", {
      cause: e,
      hint: "Run the command again: it starts a daemon",
    });
  } finally {
    client.close();
  }
}
