import assert from "node:assert/strict";
import { launchdPlist, serviceName, servicePath, systemdUnit } from "./unit.ts";
import { McpxError } from "../errors.ts";

const SPEC = {
  key: "0123456789abcdef",
  config: "/home/a b/100%/.mcpx.json",
  cwd: "/home/a b/100%",
  command: "/usr/bin/deno",
  args: ["run", "-A", "--v8-flags=--max-semi-space-size=1", "/opt/mcpx/main.ts", "daemon"],
  env: { PATH: "/usr/bin:/bin", DENO_DIR: "/home/a b/.cache/deno" },
};

Deno.test("a systemd unit quotes words with spaces and doubles % and $", () => {
  const unit = systemdUnit({ ...SPEC, args: [...SPEC.args, "$HOME"] });
  assert.match(unit, /^WorkingDirectory="\/home\/a b\/100%%"$/m);
  assert.match(unit, /^Environment="MCPX_CONFIG=\/home\/a b\/100%%\/.mcpx.json"$/m);
  assert.match(unit, /^Environment="DENO_DIR=\/home\/a b\/.cache\/deno"$/m);
  assert.match(
    unit,
    /^ExecStart=\/usr\/bin\/deno run -A --v8-flags=--max-semi-space-size=1 \/opt\/mcpx\/main.ts daemon \$\$HOME$/m,
  );
  assert.match(unit, /^Restart=on-failure$/m);
  assert.match(unit, /^WantedBy=default.target$/m);
  // Environment lines are sorted, so the same inputs write the same file.
  assert.ok(unit.indexOf("DENO_DIR") < unit.indexOf("PATH="));
});

Deno.test("a launchd agent escapes XML and carries the label, arguments and variables", () => {
  const plist = launchdPlist({ ...SPEC, args: [...SPEC.args, "<&>"] });
  assert.match(plist, /<key>Label<\/key>\n {2}<string>dev\.mcpx\.0123456789abcdef<\/string>/);
  assert.match(plist, /<string>&lt;&amp;&gt;<\/string>/);
  assert.match(
    plist,
    /<key>MCPX_CONFIG<\/key>\n {4}<string>\/home\/a b\/100%\/.mcpx.json<\/string>/,
  );
  assert.match(plist, /<key>RunAtLoad<\/key>\n {2}<true\/>/);
  assert.match(plist, /<key>SuccessfulExit<\/key>\n {4}<false\/>/);
  // Every opened element is closed: a well-formed document.
  const opened = [...plist.matchAll(/<(dict|array|plist)\b/g)].length;
  const closed = [...plist.matchAll(/<\/(dict|array|plist)>/g)].length;
  assert.equal(opened, closed);
});

Deno.test("names and places follow the platform", () => {
  assert.equal(serviceName("systemd", "k"), "mcpx-k.service");
  assert.equal(serviceName("launchd", "k"), "dev.mcpx.k");
  assert.equal(
    servicePath("systemd", "k", { HOME: "/h" }),
    "/h/.config/systemd/user/mcpx-k.service",
  );
  assert.equal(
    servicePath("systemd", "k", { HOME: "/h", XDG_CONFIG_HOME: "/x" }),
    "/x/systemd/user/mcpx-k.service",
  );
  assert.equal(
    servicePath("launchd", "k", { HOME: "/h" }),
    "/h/Library/LaunchAgents/dev.mcpx.k.plist",
  );
});

Deno.test("a folder whose name holds a line break is refused: it would add a line to the unit", () => {
  const config = '/home/a/x\nExecStartPre=/bin/sh -c "echo pwned" #/.mcpx.json';
  for (const write of [systemdUnit, launchdPlist]) {
    assert.throws(
      () => write({ ...SPEC, config, cwd: config.slice(0, config.lastIndexOf("/")) }),
      (e: unknown) => e instanceof McpxError && e.code === "USAGE" && /line break/.test(e.message),
    );
  }
});
