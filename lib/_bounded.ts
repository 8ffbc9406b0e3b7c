/**
 * A gate letting at most `limit` tasks run at once; the others wait their turn, first come first
 * served. `run(task)` resolves (or rejects) as the task does.
 */
export function bounded(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((go) => waiting.push(go));
    else running++;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      // The slot passes straight to the next task, so a newcomer never takes it in between.
      if (next) next();
      else running--;
    }
  };
}
