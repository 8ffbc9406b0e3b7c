/**
 * Runs the whole test suite and ends with the one line CI reads:
 * `tests: N passed, N failed, N skipped`, counted from Deno's JUnit report.
 * Extra arguments go to `deno test` (e.g. a path or `--filter`).
 */
const dir = await Deno.makeTempDir({ prefix: "mcpx-junit-" });
const junit = `${dir}/junit.xml`;
const args = ["test", "-A", "--reporter=dot", `--junit-path=${junit}`, ...Deno.args];
const env = { NO_COLOR: "1" };
const status = await new Deno.Command(Deno.execPath(), { args, env, stdin: "null" }).spawn().status;

let passed = 0, failed = 0, skipped = 0;
try {
  const xml = await Deno.readTextFile(junit);
  for (const [, body] of xml.matchAll(/<testcase\b[^>]*?(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    if (body && /<failure\b/.test(body)) failed++;
    else if (body && /<skipped\b/.test(body)) skipped++;
    else passed++;
  }
} catch {
  // No report at all (e.g. a file failed to type-check): count the run as one failure.
  failed = Math.max(failed, status.success ? 0 : 1);
}
if (!status.success && failed === 0) failed = 1;
await Deno.remove(dir, { recursive: true });
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
Deno.exit(status.code);
