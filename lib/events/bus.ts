// The daemon's one event bus: servers started, crashed and stopped, calls finished, tool lists
// changed, questions raised and answered. Every event gets the next sequence number and goes
// into a bounded ring; a subscriber is a cursor into that ring, so publishing is an append and a
// wake-up, never a wait on a reader. A reader that falls behind the ring's retained history is
// told in band (a `gap` event) how many it missed, and keeps a count of them.

/** One event as the bus holds it and `GET /v1/events` sends it. */
export interface BusEvent {
  /** The sequence number: 1, 2, 3, … for the daemon's life. */
  id: number;
  type: string;
  /** ISO time of publishing. */
  time: string;
  data: Record<string, unknown>;
}

/** What a subscriber reads: events, and `gap` where retained history did not reach back. */
export type Delivery = BusEvent | Gap;

/** Events `after` … `upTo` (inclusive) were no longer retained when this reader asked. */
export interface Gap {
  type: "gap";
  /** The last event the reader had. */
  after: number;
  /** The last event it did not get: reading resumes at `upTo + 1`. */
  upTo: number;
  /** How many it missed this time (`upTo - after`) and in all. */
  missed: number;
  missedTotal: number;
}

/** The default number of events retained for replay. */
export const DEFAULT_RETAIN = 1024;

export class EventBus {
  readonly #retain: number;
  readonly #ring: BusEvent[] = [];
  /** Index in `#ring` of the oldest retained event (the ring is an array used circularly). */
  #head = 0;
  #last = 0;
  #closed = false;
  readonly #waiters = new Set<() => void>();

  constructor(retain = DEFAULT_RETAIN) {
    this.#retain = Math.max(1, retain);
  }

  /** The sequence number of the newest event (0 before any). */
  get last(): number {
    return this.#last;
  }

  /** The oldest sequence number still retained (`last + 1` when none is). */
  get oldest(): number {
    return this.#last - this.#ring.length + 1;
  }

  /** Publishes one event; returns it. Never waits on a subscriber. */
  publish(type: string, data: Record<string, unknown> = {}): BusEvent {
    const event: BusEvent = {
      id: ++this.#last,
      type,
      time: new Date().toISOString(),
      data,
    };
    if (this.#ring.length < this.#retain) this.#ring.push(event);
    else {
      this.#ring[this.#head] = event;
      this.#head = (this.#head + 1) % this.#retain;
    }
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
    return event;
  }

  /** The retained events after sequence number `after`, oldest first. */
  after(after: number): BusEvent[] {
    const n = this.#ring.length;
    const skip = Math.max(0, after - this.oldest + 1);
    const out: BusEvent[] = [];
    for (let i = skip; i < n; i++) out.push(this.#ring[(this.#head + i) % n]);
    return out;
  }

  /**
   * A reader positioned after `since` (0: everything retained); without it, live only (after
   * the newest event).
   */
  subscribe(since?: number): Subscription {
    return new Subscription(this, since === undefined ? this.#last : Math.max(0, since));
  }

  /** Ends every subscription: readers get `undefined` once they have what is retained. */
  close(): void {
    this.#closed = true;
    for (const wake of this.#waiters) wake();
    this.#waiters.clear();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Resolves at the next publish or close (or when `signal` aborts). */
  wait(signal?: AbortSignal): Promise<void> {
    if (this.#closed || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        signal?.removeEventListener("abort", wake);
        this.#waiters.delete(wake);
        resolve();
      };
      this.#waiters.add(wake);
      signal?.addEventListener("abort", wake, { once: true });
    });
  }
}

/** One reader's cursor into the bus. */
export class Subscription {
  readonly #bus: EventBus;
  #cursor: number;
  /** Events this reader never got because they left the ring before it read them. */
  missed = 0;

  constructor(bus: EventBus, cursor: number) {
    this.#bus = bus;
    this.#cursor = cursor;
  }

  /** The last sequence number delivered (or skipped past). */
  get cursor(): number {
    return this.#cursor;
  }

  /**
   * What is there to read now: a gap first if history did not reach back, then events (at most
   * `max`). Empty when the reader is up to date.
   */
  take(max = 256): Delivery[] {
    const out: Delivery[] = [];
    const oldest = this.#bus.oldest;
    if (this.#cursor < oldest - 1) {
      const missed = oldest - 1 - this.#cursor;
      this.missed += missed;
      out.push({
        type: "gap",
        after: this.#cursor,
        upTo: oldest - 1,
        missed,
        missedTotal: this.missed,
      });
      this.#cursor = oldest - 1;
    }
    const events = this.#bus.after(this.#cursor).slice(0, max);
    if (events.length > 0) this.#cursor = events[events.length - 1].id;
    out.push(...events);
    return out;
  }

  /** Waits for something to read; resolves to [] when the bus closed or `signal` aborted. */
  async next(signal?: AbortSignal, max = 256): Promise<Delivery[]> {
    for (;;) {
      const got = this.take(max);
      if (got.length > 0) return got;
      if (this.#bus.closed || signal?.aborted) return [];
      await this.#bus.wait(signal);
    }
  }
}

/** One delivery as a server-sent event: `id:` carries the sequence number (a gap's `upTo`). */
export function sseFrame(d: Delivery): string {
  if (d.type === "gap" && !("id" in d)) {
    const g = d as Gap;
    return `id: ${g.upTo}\nevent: gap\ndata: ${JSON.stringify(g)}\n\n`;
  }
  const e = d as BusEvent;
  return `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
}

/**
 * Where a `GET /v1/events` starts: `?since=N`, else `Last-Event-ID`, else live only.
 * @returns undefined for live only, or the sequence number to read after; a string when the
 *   value is not a sequence number (the message of the refusal).
 */
export function startOf(url: URL, headers: Headers): number | undefined | string {
  const raw = url.searchParams.get("since") ?? headers.get("last-event-id");
  if (raw === null || raw === "") return undefined;
  if (!/^\d+$/.test(raw)) return `"since" must be a sequence number (0 or more), not "${raw}"`;
  return Number(raw);
}

/**
 * The SSE response of one subscriber. `follow: false` sends what is retained after the start
 * and ends. A comment line every `keepAliveMs` finds a reader that went away.
 */
export function sseResponse(
  bus: EventBus,
  since: number | undefined,
  options: { follow: boolean; signal?: AbortSignal; keepAliveMs?: number },
): Response {
  const sub = bus.subscribe(since);
  const encoder = new TextEncoder();
  const stop = new AbortController();
  const signals = options.signal ? [stop.signal, options.signal] : [stop.signal];
  const signal = AbortSignal.any(signals);
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`: mcpx events from ${sub.cursor}\n\n`));
      if (options.follow) {
        keepAlive = setInterval(() => {
          try {
            controller.enqueue(encoder.encode(": keep-alive\n\n"));
          } catch {
            clearInterval(keepAlive);
          }
        }, options.keepAliveMs ?? 15_000);
      }
    },
    // Pulled as the reader reads: a slow reader holds its cursor, never a queue of events.
    async pull(controller) {
      const got = options.follow ? await sub.next(signal) : sub.take();
      if (got.length === 0) {
        clearInterval(keepAlive);
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(got.map(sseFrame).join("")));
    },
    cancel() {
      clearInterval(keepAlive);
      stop.abort();
    },
  }, { highWaterMark: 0 });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-store",
      "x-mcpx-events-last": String(bus.last),
    },
  });
}
