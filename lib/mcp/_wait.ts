/**
 * Waits for `promise`, but no longer than `ms`. Resolves `true` when it settled in time (its
 * rejection is swallowed: callers use this to bound clean-up, not to get a value), `false` when
 * the time ran out. The timer is always cleared, so Deno's test sanitizers see no leak.
 */
export async function waitAtMost(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true, () => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
