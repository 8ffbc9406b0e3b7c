import type { FetchLike, JSONRPCMessage, TransportSendOptions } from "@modelcontextprotocol/client";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

/** The endpoint could not be reached at all (refused, reset, DNS): no HTTP answer came back. */
export class EndpointUnreachable extends Error {
  override name = "EndpointUnreachable";
  /** The endpoint without credentials: origin and path only. */
  readonly where: string;
  constructor(where: string, options?: ErrorOptions) {
    super(`Cannot reach ${where}`, options);
    this.where = where;
  }
}

/**
 * A URL fit for messages and logs: origin and path, without user info, query or fragment,
 * since any of those may carry a credential (`auth.type: "query"` puts one in the query).
 */
export function safeUrl(url: string | URL): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return "(an invalid URL)";
  }
}

/**
 * `fetch` for the SDK's HTTP transports that turns a network failure into
 * {@linkcode EndpointUnreachable}, so that callers can tell "the server is gone" from every
 * other failure by class rather than by message text, and so that Deno's error text (which
 * quotes the full URL, query and all) never reaches a message.
 */
export function reportingFetch(where: string, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    try {
      return await base(url, init);
    } catch (error) {
      // An abort is the transport's own doing (close, cancellation), not the network's.
      if (init?.signal?.aborted) throw error;
      throw new EndpointUnreachable(where, { cause: error });
    }
  };
}

/**
 * The SDK's Streamable HTTP client transport, plus per-request cancellation for the legacy
 * protocol era.
 *
 * On a 2025-era connection the SDK answers a timeout by POSTing `notifications/cancelled`, but
 * leaves the POST that carries the request running; against a server that accepted the POST and
 * never answers, that request holds a connection until the transport closes. Here every
 * outbound request gets its own abort signal (the SDK's `requestSignal`, which it already
 * honours for the 2026 era), and sending the cancellation aborts the POST it cancels.
 */
export class CancellableHttpTransport extends StreamableHTTPClientTransport {
  readonly #inflight = new Map<string | number, AbortController>();

  override send(
    message: JSONRPCMessage | JSONRPCMessage[],
    options?: TransportSendOptions,
  ): Promise<void> {
    if (Array.isArray(message) || !("method" in message)) return super.send(message, options);
    if (message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: string | number } | undefined)?.requestId;
      if (id !== undefined) this.#abort(id);
      return super.send(message, options);
    }
    if (!("id" in message)) return super.send(message, options);
    const controller = new AbortController();
    this.#inflight.set(message.id, controller);
    const requestSignal = options?.requestSignal
      ? AbortSignal.any([options.requestSignal, controller.signal])
      : controller.signal;
    return super.send(message, { ...options, requestSignal });
  }

  /** Forgets a request once its answer has arrived. */
  settle(id: string | number): void {
    this.#inflight.delete(id);
  }

  override async close(): Promise<void> {
    this.#inflight.clear();
    await super.close();
  }

  #abort(id: string | number): void {
    this.#inflight.get(id)?.abort();
    this.#inflight.delete(id);
  }
}
