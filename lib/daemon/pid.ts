/** Whether a process with this pid runs; an exited one its parent has not reaped yet does not. */
export function pidAlive(pid: number): boolean {
  if (Deno.build.os !== "linux") {
    try {
      Deno.kill(pid, "SIGCONT");
      return true;
    } catch (e) {
      return !(e instanceof Deno.errors.NotFound);
    }
  }
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return !/^\d+ \(.*\) [ZX] /s.test(stat);
  } catch {
    return false;
  }
}
