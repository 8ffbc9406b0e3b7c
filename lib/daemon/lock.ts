/** Runs `fn` holding an exclusive advisory lock (flock) on `path`, creating the file if needed. */
export async function withLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const file = await Deno.open(path, { create: true, write: true, mode: 0o600 });
  try {
    await file.lock(true);
    return await fn();
  } finally {
    file.close();
  }
}
