/**
 * The process table, read once here: a process's /proc/<pid>/stat fields, the token that names it
 * while it runs, its command line, the processes of a group, the tree below a pid, the signals
 * that stop them, and another process's pipes opened through /proc. On Linux from /proc,
 * elsewhere from `ps` or a signal where that can tell, and nothing where it cannot.
 */

/**
 * The fields of /proc/<pid>/stat after the command name: the state first, then the parent pid…
 * (field 3 onwards). Undefined when there is no such file (no such process, or not Linux).
 */
export function procStat(pid: number): string[] | undefined {
  let stat: string;
  try {
    stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
  // `pid (comm) state ppid …`: the name may hold spaces and parentheses, so fields are counted
  // from the last `)`. By hand: a start's first regular expression costs ~0.15 ms.
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/**
 * What names one process for as long as it runs: on Linux its start time (clock ticks since
 * boot, field 22 of /proc/<pid>/stat), elsewhere "" while a process with the pid exists.
 * Undefined when none runs, an exited process its parent has not reaped yet included. A pid can
 * be reused; a pid and its token cannot, so a file naming its writer by both is trusted only
 * while that writer runs.
 */
export function processToken(pid: number): string | undefined {
  if (Deno.build.os !== "linux") {
    try {
      Deno.kill(pid, "SIGCONT");
      return "";
    } catch (e) {
      return e instanceof Deno.errors.NotFound ? undefined : "";
    }
  }
  const fields = procStat(pid);
  if (fields === undefined || fields[0] === "Z" || fields[0] === "X") return undefined;
  return fields[19] ?? "";
}

/** Whether a process with this pid runs; an exited one its parent has not reaped yet does not. */
export function pidAlive(pid: number): boolean {
  return processToken(pid) !== undefined;
}

/** Whether `pid` still runs as the process that started at `start` (a zombie does not). */
export function stillRuns(pid: number, start: string): boolean {
  const f = procStat(pid);
  return f !== undefined && f[19] === start && f[0] !== "Z" && f[0] !== "X";
}

/** The start time /proc gives `pid` (what {@linkcode stillRuns} compares), or undefined. */
export function startOf(pid: number): string | undefined {
  return procStat(pid)?.[19];
}

/** `pid`'s argument vector from /proc/<pid>/cmdline, or undefined when it cannot be read. */
export function cmdlineOf(pid: number): string[] | undefined {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0");
  } catch {
    return undefined;
  }
}

/** The pids /proc lists now, or undefined when /proc cannot be read (not Linux). */
function procPids(): number[] | undefined {
  let entries: Iterable<Deno.DirEntry>;
  try {
    entries = Deno.readDirSync("/proc");
  } catch {
    return undefined;
  }
  const pids: number[] = [];
  for (const e of entries) if (/^\d+$/.test(e.name)) pids.push(Number(e.name));
  return pids;
}

/**
 * Each live process (neither a zombie nor dead) in group `pgid` now, with its stat fields, read
 * one at a time; none where /proc cannot be read. A process that exits meanwhile is passed over.
 */
function* inGroup(pgid: number): Generator<{ pid: number; fields: string[] }> {
  for (const pid of procPids() ?? []) {
    const fields = procStat(pid);
    if (!fields || fields[0] === "Z" || fields[0] === "X" || Number(fields[2]) !== pgid) continue;
    yield { pid, fields };
  }
}

/** The pids of live processes in group `pgid` that started at or after `since` (clock ticks). */
export function groupMembers(pgid: number, since: number): number[] {
  const out: number[] = [];
  for (const { pid, fields } of inGroup(pgid)) if (Number(fields[19]) >= since) out.push(pid);
  return out;
}

/** Waits until no live process is in group `pgid` (Linux: read from /proc), up to `ms`. */
export async function groupGone(pgid: number, ms: number): Promise<void> {
  if (Deno.build.os !== "linux") return;
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    if (inGroup(pgid).next().done) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Pid → parent pid for every process we can see. */
export function processTable(): Map<number, number> {
  const table = new Map<number, number>();
  const pids = procPids();
  if (pids !== undefined) {
    for (const pid of pids) {
      const fields = procStat(pid);
      if (fields) table.set(pid, Number(fields[1])); // else gone meanwhile
    }
    return table;
  }
  try {
    const out = new Deno.Command("ps", {
      args: ["-A", "-o", "pid=,ppid="],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).outputSync();
    for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
      const m = /^\s*(\d+)\s+(\d+)/.exec(line);
      if (m) table.set(Number(m[1]), Number(m[2]));
    }
  } catch { /* no ps either: nothing known */ }
  return table;
}

/**
 * Pid → parent pid for `root` and every process below it. On Linux this walks the tree down from
 * `root` through /proc/<pid>/task/<tid>/children, a few reads, where {@linkcode processTable}
 * reads one file per process on the machine (~2 ms with 73 processes here, performance.now()
 * around it, at the end of every `mcpx run`). Elsewhere, or on a kernel without those files, it
 * is the whole table.
 */
export function processTree(root: number): Map<number, number> {
  const tree = new Map<number, number>();
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    const children = childrenOf(pid);
    if (children === undefined) {
      if (pid === root) return processTable();
      continue; // gone meanwhile
    }
    for (const child of children) {
      if (tree.has(child) || child === root) continue;
      tree.set(child, pid);
      queue.push(child);
    }
  }
  return tree;
}

// The children of every thread of `pid`, or undefined when none can be read (the process has
// gone, or the kernel has no such files). A thread that ends meanwhile is passed over.
function childrenOf(pid: number): number[] | undefined {
  let tasks: Deno.DirEntry[];
  try {
    tasks = [...Deno.readDirSync(`/proc/${pid}/task`)];
  } catch {
    return undefined;
  }
  let read = false;
  const out: number[] = [];
  for (const task of tasks) {
    let text: string;
    try {
      text = Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/children`);
    } catch {
      continue;
    }
    read = true;
    for (const word of text.split(" ")) if (word !== "") out.push(Number(word));
  }
  return read ? out : undefined;
}

/** The parent of `pid` now, or undefined when it has gone. */
export function parentOf(pid: number): number | undefined {
  const fields = procStat(pid);
  return fields ? Number(fields[1]) : processTable().get(pid);
}

/**
 * Every descendant of `root` (not `root` itself), leaving out the subtrees rooted at `spare`, from
 * `table` (read now when not given).
 */
export function descendants(
  root: number,
  spare: ReadonlySet<number> = new Set(),
  table: Map<number, number> = processTree(root),
): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of table) {
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid)!.push(pid);
  }
  const out: number[] = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    if (spare.has(pid) || pid === Deno.pid) continue;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** Sends `signal` to each pid that still exists; returns how many received it. */
export function signalAll(pids: readonly number[], signal: Deno.Signal = "SIGKILL"): number {
  let n = 0;
  for (const pid of pids) {
    try {
      Deno.kill(pid, signal);
      n++;
    } catch { /* already gone */ }
  }
  return n;
}

/**
 * Sends `signal` to every process in the group `pgid`; a group already gone is not an error.
 * Says whether it reached anyone (false: nobody is in the group, not even a zombie).
 */
export function signalGroup(pgid: number, signal: Deno.Signal = "SIGKILL"): boolean {
  try {
    Deno.kill(-pgid, signal);
    return true;
  } catch {
    // ESRCH: nobody left in the group.
    return false;
  }
}

/** A server's pipes, opened through /proc by the daemon that adopts it: {@linkcode openPipes}. */
export interface AdoptedPipes {
  stdin: Deno.FsFile;
  stdout: Deno.FsFile;
  stderr: Deno.FsFile;
}

/**
 * Opens another process's stdin (for writing), stdout and stderr (for reading) through
 * /proc/<pid>/fd: on Linux that opens the very pipes it holds, a new end of each, so a daemon
 * can take over a server its predecessor started without the predecessor passing descriptors.
 * Only the process's owner may (the same check as reading its memory).
 */
export function openPipes(pid: number): AdoptedPipes {
  const opened: Deno.FsFile[] = [];
  try {
    for (
      const [fd, how] of [[0, { write: true }], [1, { read: true }], [2, { read: true }]] as const
    ) {
      const path = `/proc/${pid}/fd/${fd}`;
      if (!Deno.readLinkSync(path).startsWith("pipe:")) {
        throw new Error(`its fd ${fd} is not a pipe`);
      }
      opened.push(Deno.openSync(path, how));
    }
  } catch (e) {
    for (const f of opened) f.close();
    throw e;
  }
  return { stdin: opened[0], stdout: opened[1], stderr: opened[2] };
}

/**
 * A pipe opened through /proc, as a stream of writes. Not `FsFile.writable`: its writes to such
 * a pipe never reach the reader (Deno 2.9; `file.write` does).
 */
export function fileWritable(file: Deno.FsFile): WritableStream<Uint8Array> {
  const close = () => {
    try {
      file.close();
    } catch { /* already closed */ }
  };
  return new WritableStream<Uint8Array>({
    async write(chunk) {
      for (let at = 0; at < chunk.length;) at += await file.write(chunk.subarray(at));
    },
    close,
    abort: close,
  });
}
