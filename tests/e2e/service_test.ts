// `mcpx service` (docs/daemon.md, "As a service"): the unit it writes runs a daemon that commands
// then find on its socket. This machine has no user service manager to hand a unit to (a
// container has no systemd user session), so a stand-in `systemctl` on PATH records what mcpx
// asks of it, and the test runs the unit's ExecStart itself, with its Environment= and
// WorkingDirectory=, as systemd would.

import assert from "node:assert/strict";
import { join } from "node:path";
import { alive, ONE_SERVER, Sandbox } from "../_helpers.ts";

interface ServiceOut {
  action: string;
  platform: string;
  name: string;
  file: string;
  config: string;
  installed: boolean;
  current?: boolean;
  state?: string;
  ran: { command: string; ok: boolean; output?: string }[];
  todo?: string[];
  definition?: string;
}

/** A `systemctl` that appends its arguments to `calls` and says `active` to is-active. */
async function fakeSystemctl(box: Sandbox, fail = false): Promise<{ path: string; calls: string }> {
  const bin = join(box.root, "bin");
  await Deno.mkdir(bin, { recursive: true });
  const calls = join(box.root, "systemctl.calls");
  const script = `#!/bin/sh\necho "$@" >> ${calls}\n${
    fail ? 'echo "Failed to connect to bus: No medium found" >&2; exit 1' : ""
  }\ncase "$*" in *is-active*) echo active;; esac\n`;
  await Deno.writeTextFile(join(bin, "systemctl"), script, { mode: 0o755 });
  return { path: `${bin}:${box.env.PATH}`, calls };
}

/** The words of a unit's ExecStart= line, unquoted as systemd does for these simple forms. */
function execStart(unit: string): string[] {
  const line = unit.split("\n").find((l) => l.startsWith("ExecStart="))!.slice("ExecStart=".length);
  return [...line.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) =>
    (m[1] ?? m[2]).replaceAll("$$", "$").replaceAll("%%", "%")
  );
}

function environment(unit: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of unit.matchAll(/^Environment="([^=]+)=(.*)"$/gm)) {
    out[m[1]] = m[2].replaceAll('\\"', '"').replaceAll("\\\\", "\\").replaceAll("%%", "%");
  }
  return out;
}

Deno.test("service install writes a unit whose daemon commands use, status reads it, uninstall removes it", async () => {
  await using box = await Sandbox.create();
  const config = await box.write("work/.mcpx.json", ONE_SERVER);
  const fake = await fakeSystemctl(box);
  const env = { PATH: fake.path };
  // A service's daemon has no MCPX_TRUST_ALL: the configuration must be trusted for real.
  assert.equal((await box.mcpx(["trust"])).code, 0);

  const printed = await box.json<ServiceOut>(["service", "install", "--print"], { env });
  assert.equal(printed.installed, false);
  assert.match(printed.definition!, /^\[Service\]$/m);

  const installed = await box.json<ServiceOut>(["service", "install"], { env });
  assert.equal(installed.platform, "systemd");
  assert.equal(installed.config, config);
  assert.match(installed.name, /^mcpx-[0-9a-f]{16}\.service$/);
  assert.equal(installed.file, join(box.root, "config", "systemd", "user", installed.name));
  assert.deepEqual(installed.ran.map((r) => [r.command, r.ok]), [
    ["systemctl --user daemon-reload", true],
    [`systemctl --user enable --now ${installed.name}`, true],
  ]);
  const unit = await Deno.readTextFile(installed.file);
  assert.equal(unit, printed.definition, "--print shows exactly what install writes");
  assert.equal(Deno.statSync(installed.file).mode! & 0o777, 0o644);

  // Run the unit as systemd would: its daemon is the one the next command finds.
  const [command, ...args] = execStart(unit);
  const workdir = unit.match(/^WorkingDirectory=(.*)$/m)![1];
  const daemon = new Deno.Command(command, {
    args,
    cwd: workdir,
    env: { ...environment(unit), HOME: box.env.HOME, E2E_SANDBOX: box.root },
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    let health: { pid: number } | undefined;
    for (let i = 0; i < 200 && !health; i++) {
      const r = await box.mcpx(["--json", "status"], { env });
      const pid = r.code === 0 ? JSON.parse(r.stdout).pid : undefined;
      if (pid === daemon.pid) health = { pid };
      else await new Promise((r) => setTimeout(r, 50));
    }
    if (!health) {
      const last = await box.mcpx(["--json", "status"], { env });
      assert.fail(`mcpx status did not report the service's daemon: ${last.stdout}${last.stderr}`);
    }
    const again = await box.json<{ pid: number }>(["health"], { env });
    assert.equal(again.pid, daemon.pid, "a command uses the service's daemon, starting none");
  } finally {
    await box.mcpx(["stop"], { env });
    const status = await daemon.status;
    assert.equal(status.success, true, "the daemon stops cleanly when asked");
    await daemon.stderr.cancel();
  }
  assert.equal(alive(daemon.pid), false);

  const status = await box.json<ServiceOut>(["service", "status"], { env });
  assert.equal(status.installed, true);
  assert.equal(status.current, true);
  assert.equal(status.state, "active");
  const text = await box.mcpx(["service", "status"], { env });
  assert.match(text.stdout, /installed at .*, active\n {2}serves /);

  // A unit that no longer matches (written by another mcpx, or edited) is reported stale.
  await Deno.writeTextFile(installed.file, unit.replace("RestartSec=2", "RestartSec=9"));
  const stale = await box.json<ServiceOut>(["service", "status"], { env });
  assert.equal(stale.current, false);
  assert.match(
    (await box.mcpx(["service", "status"], { env })).stdout,
    /run `mcpx service install` again/,
  );

  const removed = await box.json<ServiceOut>(["service", "uninstall"], { env });
  assert.equal(removed.installed, false);
  assert.deepEqual(removed.ran.map((r) => r.command), [
    `systemctl --user disable --now ${installed.name}`,
    "systemctl --user daemon-reload",
  ]);
  await assert.rejects(Deno.stat(installed.file), Deno.errors.NotFound);
  const none = await box.json<ServiceOut>(["service", "status"], { env });
  assert.equal(none.installed, false);
  const calls = await Deno.readTextFile(fake.calls);
  assert.match(calls, /--user is-active mcpx-/);
});

Deno.test("service install without a reachable service manager still writes the unit and says what to run", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", ONE_SERVER);
  const fake = await fakeSystemctl(box, true);
  const r = await box.mcpx(["service", "install"], { env: { PATH: fake.path } });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /failed: systemctl --user daemon-reload \(Failed to connect to bus/);
  // The unit's state is not known: status says the manager could not be asked, not "Failed".
  const unasked = await box.mcpx(["service", "status"], { env: { PATH: fake.path } });
  assert.equal(unasked.code, 0, unasked.stderr);
  assert.match(
    unasked.stdout,
    /installed at .*, the service manager could not be asked \(Failed to connect to bus: No medium found\)\n/,
  );
  const unaskedJson = await box.json<ServiceOut>(["service", "status"], {
    env: { PATH: fake.path },
  });
  assert.equal(unaskedJson.state, undefined);
  assert.match(
    r.stdout,
    /still to do.*\n {4}systemctl --user daemon-reload\n {4}systemctl --user enable --now mcpx-/,
  );
  const json = await box.json<ServiceOut>(["service", "uninstall"], { env: { PATH: fake.path } });
  assert.equal(json.installed, false);
  assert.ok(json.todo?.length, "the disable command is left to the person");

  // No systemctl at all: the same, with the commands to run.
  const bare = await box.json<ServiceOut>(["service", "install"], {
    env: { PATH: "/nonexistent" },
  });
  assert.equal(bare.installed, true);
  assert.equal(bare.ran[0].output, "not installed");
  assert.equal(bare.todo?.length, 2);
  const nobody = await box.mcpx(["service", "status"], { env: { PATH: "/nonexistent" } });
  assert.match(nobody.stdout, /, the service manager could not be asked \(not installed\)\n/);
  await box.mcpx(["service", "uninstall"], { env: { PATH: "/nonexistent" } });
});

Deno.test("service install --platform launchd writes an agent under ~/Library/LaunchAgents", async () => {
  await using box = await Sandbox.create();
  const config = await box.write("work/.mcpx.json", ONE_SERVER);
  const out = await box.json<ServiceOut>([
    "service",
    "install",
    "--platform",
    "launchd",
    "--no-start",
  ]);
  assert.match(out.name, /^dev\.mcpx\.[0-9a-f]{16}$/);
  assert.equal(out.file, join(box.root, "home", "Library", "LaunchAgents", `${out.name}.plist`));
  assert.deepEqual(out.ran, []);
  const plist = await Deno.readTextFile(out.file);
  assert.ok(plist.includes(`<string>${config}</string>`));
  assert.match(plist, /<string>daemon<\/string>\n {2}<\/array>/);
});

Deno.test("service: bad input is one line and writes nothing", async () => {
  await using box = await Sandbox.create();
  const noConfig = await box.mcpx(["service", "install"]);
  assert.notEqual(noConfig.code, 0);
  assert.equal(noConfig.stderr.trim().split("\n").length, 1, noConfig.stderr);
  const bad = await box.mcpx(["service", "reinstall"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /install, uninstall, status|"reinstall"/);
  await box.write("work/.mcpx.json", ONE_SERVER);
  // The unit's folder is a file: refused in one line, nothing half-written.
  await Deno.mkdir(join(box.root, "config", "systemd"), { recursive: true });
  await Deno.writeTextFile(join(box.root, "config", "systemd", "user"), "not a folder");
  const blocked = await box.mcpx(["service", "install", "--no-start"]);
  assert.equal(blocked.code, 4, blocked.stderr);
  assert.match(blocked.stderr, /^mcpx: Cannot write ".*mcpx-[0-9a-f]{16}\.service"/);
  assert.equal(blocked.stderr.trim().split("\n").length <= 2, true, blocked.stderr);
});
