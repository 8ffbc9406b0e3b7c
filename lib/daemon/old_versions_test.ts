import assert from "node:assert/strict";
import { join } from "../_path.ts";
import { tempTree } from "../_testing.ts";
import { daemonFiles, type DaemonPaths } from "../paths.ts";
import { markVersion, removeOldVersions } from "./old_versions.ts";
import { processToken } from "./pid.ts";

const OWN = "aaaaaaaaaaaaaaaa";
const OLD = "bbbbbbbbbbbbbbbb";
const RUNNING = "cccccccccccccccc";
const REUSED = "dddddddddddddddd";
const OTHER = "eeeeeeeeeeeeeeee";

Deno.test("removeOldVersions() removes older versions' files, never a running version's nor another file's", async () => {
  const me = { pid: Deno.pid, start: processToken(Deno.pid) };
  const mark = (config: string, who: { pid: number; start?: string }) =>
    JSON.stringify({ config, ...who });
  const files: Record<string, string> = {
    [`daemons/${OLD}.version.json`]: mark("/c.json", { pid: 999_999_999, start: "1" }),
    [`daemons/${RUNNING}.version.json`]: mark("/c.json", me),
    // This very pid, but started at another time: the daemon that wrote it is gone.
    [`daemons/${REUSED}.version.json`]: mark("/c.json", { pid: Deno.pid, start: "not-now" }),
    [`daemons/${OTHER}.version.json`]: mark("/other.json", { pid: 999_999_999, start: "1" }),
  };
  for (const short of [OLD, RUNNING, REUSED, OTHER]) {
    for (const kind of [".spawn.lock", ".bind.lock", ".start-error", ".live.json", ".sock"]) {
      files[`daemons/${short}${kind}`] = "x";
    }
    files[`logs/daemon-${short}.jsonl`] = "{}\n";
  }
  const root = await tempTree(files, "mcpx-old-versions-");
  try {
    const pathsOf = (short: string): DaemonPaths => ({
      dir: join(root, "daemons"),
      ...daemonFiles(join(root, "daemons"), short),
      socket: join(root, "daemons", `${short}.sock`),
      socketFallback: false,
      log: join(root, "logs", `daemon-${short}.jsonl`),
    });
    const own = pathsOf(OWN);
    markVersion(own, "/c.json");
    const cleaned = await removeOldVersions(own, "/c.json", pathsOf);
    assert.deepEqual(cleaned.sort(), [OLD, REUSED]);
    const left = [
      ...Deno.readDirSync(join(root, "daemons")),
      ...Deno.readDirSync(join(root, "logs")),
    ].map((e) => e.name);
    for (const gone of [OLD, REUSED]) {
      assert.deepEqual(left.filter((n) => n.includes(gone)), [], `${gone}'s files are gone`);
    }
    for (const kept of [RUNNING, OTHER]) {
      assert.equal(left.filter((n) => n.includes(kept)).length, 7, `${kept}'s files stay`);
    }
    assert.ok(left.includes(`${OWN}.version.json`), "its own mark is written");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
