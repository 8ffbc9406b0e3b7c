/**
 * Runs the whole test suite and ends with the one line CI reads:
 * `tests: N passed, N failed, N skipped`, counted from Deno's JUnit report.
 * Extra arguments go to `deno test` (e.g. a path or `--filter`).
 *
 * First it brings what the end-to-end tests drive, where it is missing: the real MCP servers,
 * Node 22 and Bun from npm (tests/npm, pinned by its lock file), and, as root with apt, Debian's
 * Chromium and tmux. So `deno task test` works on a fresh clone with only Node and npm (and, for the
 * browser and terminal tests, Chromium and tmux).
 */
const repo = new URL("..", import.meta.url).pathname;
const present = (path: string) => {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
};
const step = async (what: string, command: string, args: string[]) => {
  console.error(`tests: ${what}`);
  const out = await new Deno.Command(command, { args, stdin: "null", stdout: "null" }).output()
    .catch((e) => ({ success: false, stderr: new TextEncoder().encode(String(e)) }));
  if (!out.success) {
    const why = new TextDecoder().decode(out.stderr).trim().split("\n").at(-1);
    console.error(`tests: ${what} failed: ${why}`);
  }
};
// Installed when absent, or when package.json names a package node_modules does not hold (a
// checkout that added one, such as the MCP inspector the serve tests drive).
const wanted = Object.keys(
  JSON.parse(Deno.readTextFileSync(`${repo}tests/npm/package.json`)).dependencies ?? {},
);
if (
  !present(`${repo}tests/npm/node_modules/.package-lock.json`) ||
  wanted.some((name) => !present(`${repo}tests/npm/node_modules/${name}/package.json`))
) {
  await step("installing the test servers (npm ci in tests/npm)", "npm", [
    "ci",
    "--prefix",
    `${repo}tests/npm`,
    "--no-audit",
    "--no-fund",
  ]);
}
if (!present("/usr/bin/chromium") && Deno.uid() === 0 && present("/usr/bin/apt-get")) {
  await step("installing Debian's chromium (apt-get)", "sh", [
    "-c",
    "DEBIAN_FRONTEND=noninteractive apt-get update -qq && apt-get install -y -qq chromium",
  ]);
}
// tmux: the real terminal of tests/e2e/tui_test.ts (`mcpx tui`) and tests/e2e/prompts_test.ts
// (`mcpx explore`, `mcpx repl`).
if (!present("/usr/bin/tmux") && Deno.uid() === 0 && present("/usr/bin/apt-get")) {
  await step("installing tmux (apt-get)", "sh", [
    "-c",
    "DEBIAN_FRONTEND=noninteractive apt-get update -qq && apt-get install -y -qq tmux",
  ]);
}

const dir = await Deno.makeTempDir({ prefix: "mcpx-junit-" });
const junit = `${dir}/junit.xml`;
const args = ["test", "-A", "--reporter=dot", `--junit-path=${junit}`, ...Deno.args];
// Deno trusts the system's certificates too, as .ci/run has it: behind a TLS-intercepting proxy
// npm's do not verify against Deno's own list, and the cold-cache tests make Deno fetch from npm.
const env = {
  NO_COLOR: "1",
  DENO_TLS_CA_STORE: Deno.env.get("DENO_TLS_CA_STORE") ?? "mozilla,system",
};
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
