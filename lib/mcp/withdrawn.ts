// Why a server request's answer is no longer wanted: the server withdrew it
// (`notifications/cancelled`, often its own request timeout running out), as against the
// connection ending. The questions broker tells the two apart by this reason (docs/questions.md).

/** The abort reason of a server request the server itself cancelled. */
export class RequestWithdrawn extends Error {
  override name = "RequestWithdrawn";
  constructor(reason?: string) {
    super(
      reason ? `the server withdrew its request: ${reason}` : "the server withdrew its request",
    );
  }
}

/**
 * A signal that follows `signal`, aborting with {@linkcode RequestWithdrawn} when it was aborted
 * by a cancellation (the SDK aborts with the notification's reason, a string or nothing) and with
 * the original reason otherwise (an Error: the connection closed).
 */
export function withdrawable(signal: AbortSignal | undefined): AbortSignal {
  const own = new AbortController();
  const follow = () =>
    own.abort(
      signal!.reason instanceof Error
        ? signal!.reason
        : new RequestWithdrawn(typeof signal!.reason === "string" ? signal!.reason : undefined),
    );
  if (signal?.aborted) follow();
  else signal?.addEventListener("abort", follow, { once: true });
  return own.signal;
}
