/**
 * `mcpx tui` on a real terminal: tmux runs it against the bundled example configuration, keys go
 * in with send-keys and the screen comes back with capture-pane. Set TUI_CAPTURES=<file> to keep
 * the screens as JSON (docs/ui.md shows them).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { Sandbox } from "../_helpers.ts";

const REPO = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const EXAMPLE = join(REPO, "examples", "mcpx.json");

function quote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

class Tmux {
  constructor(readonly socket: string) {}
  async run(...args: string[]): Promise<string> {
    const out = await new Deno.Command("tmux", {
      args: ["-S", this.socket, "-f", "/dev/null", ...args],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    if (!out.success) {
      throw new Error(`tmux ${args[0]}: ${new TextDecoder().decode(out.stderr)}`);
    }
    return text;
  }
  screen(): Promise<string> {
    return this.run("capture-pane", "-p", "-t", "tui");
  }
  flag(name: string): Promise<string> {
    return this.run("display-message", "-p", "-t", "tui", `#{${name}}`).then((s) => s.trim());
  }
  async keys(...keys: string[]): Promise<void> {
    // One key at a time, as a person types: each is read on its own.
    for (const k of keys) {
      await this.run("send-keys", "-t", "tui", k);
      await new Promise((r) => setTimeout(r, 60));
    }
  }
  async until(test: (screen: string) => boolean, what: string, ms = 60_000): Promise<string> {
    const deadline = Date.now() + ms;
    let last = "";
    while (Date.now() < deadline) {
      last = await this.screen();
      if (test(last)) return last;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the terminal never showed ${what}; it shows:\n${last}`);
  }
}

Deno.test({
  name: "mcpx in tmux: views, a filter, a resize; q and Ctrl-C give the terminal back",
  async fn() {
    await using box = await Sandbox.create();
    const home = Deno.env.get("HOME");
    // npx keeps the example's servers in its cache: the machine's own, so nothing is fetched again.
    const npm: Record<string, string> = home ? { npm_config_cache: join(home, ".npm") } : {};
    const extra: Record<string, string> = {
      ...npm,
      MCPX_SERVERS_ENV_PASSTHROUGH: `${box.env.MCPX_SERVERS_ENV_PASSTHROUGH},npm_config_cache`,
    };
    const env: Record<string, string> = { ...box.env, ...extra, TERM: "xterm-256color" };
    delete env.NO_COLOR;
    const refresh = await box.mcpx(["--config", EXAMPLE, "refresh"], { env: extra });
    assert.equal(refresh.code, 0, refresh.stderr);
    const call = await box.mcpx(["--config", EXAMPLE, "call", "everything.echo", "message=hi"], {
      env: extra,
    });
    assert.equal(call.code, 0, call.stderr);
    const run = await box.mcpx(
      ["--config", EXAMPLE, "run", join(REPO, "examples", "scripts", "hello.ts")],
      { env: extra },
    );
    assert.equal(run.code, 0, run.stderr);
    const named = await box.mcpx(["--config", EXAMPLE, "session", "new", "--name", "demo"], {
      env: extra,
    });
    assert.equal(named.code, 0, named.stderr);

    // The script tmux runs: mcpx with no command, then what the terminal's modes are once it has ended.
    const script = await box.write(
      "tui.sh",
      [
        ...Object.entries(env).map(([k, v]) => `export ${k}=${quote(v)}`),
        "unset CI",
        `cd ${quote(join(box.root, "work"))}`,
        `${quote(Deno.execPath())} run -A --config ${quote(join(REPO, "deno.json"))} ${
          quote(box.entry)
        } --config ${quote(EXAMPLE)}`, // bare `mcpx` on a terminal is `mcpx tui`
        `echo "EXIT=$?"`,
        `stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '`,
        "echo",
        "exec cat",
      ].join("\n") + "\n",
    );
    const tmux = new Tmux(join(box.root, "tmux.sock"));
    const captures: Record<string, string> = {};
    await tmux.run("new-session", "-d", "-s", "tui", "-x", "100", "-y", "24", `sh ${script}`);
    try {
      const tools = await tmux.until(
        (s) => s.includes("[tools]") && s.includes("everything.echo") && s.includes("message"),
        "the tools view with echo's signature",
      );
      captures.tools = tools;
      assert.match(tools, /everything 1\d/);
      // A tool is listed by the name a user calls, as `types` prints it, not the server's.
      assert.match(tools, /\bget_sum\b/);
      assert.doesNotMatch(tools, /get-sum/);
      assert.equal(await tmux.flag("alternate_on"), "1");
      assert.equal(await tmux.flag("mouse_sgr_flag"), "1");
      assert.equal(await tmux.flag("mouse_button_flag"), "1");

      // Moving the cursor loads the next namespace's tools and its first signature.
      await tmux.keys("j");
      await tmux.until((s) => s.includes("filesystem.create_directory"), "filesystem's tools");
      // A filter; its keys are not commands (`q` would quit, `]` would switch views).
      await tmux.keys("/", "m", "e", "q", "]");
      await tmux.until((s) => s.includes("namespaces 0 /meq]"), "the filter taking every key");
      await tmux.keys("BSpace", "BSpace", "Enter");
      captures.filter = await tmux.until(
        (s) => s.includes("namespaces 1 /me") && s.includes("memory."),
        "the filtered namespaces",
      );
      await tmux.keys("Escape");
      await tmux.until((s) => s.includes("namespaces 3"), "the filter cleared");

      await tmux.keys("]");
      captures.log = await tmux.until(
        (s) => s.includes("[log]") && s.includes("call.end"),
        "the log view",
      );
      await tmux.keys("Enter");
      captures.logRow = await tmux.until(
        (s) => s.includes("event: ") && s.includes("msg: "),
        "a log record opened",
      );
      await tmux.keys("Escape", "]");
      captures.stats = await tmux.until(
        (s) => s.includes("stats calls") && s.includes("echo"),
        "the stats view",
      );
      await tmux.keys("d");
      captures.statsServers = await tmux.until(
        (s) => s.includes("stats servers") && s.includes("filesystem"),
        "stats servers",
      );
      await tmux.keys("]");
      captures.servers = await tmux.until(
        (s) => s.includes("[servers]") && /everything\s+\d+\s/.test(s),
        "the servers view with pids",
      );
      await tmux.keys("]");
      captures.sessions = await tmux.until(
        (s) =>
          s.includes("[sessions]") && s.includes("run-") && /demo\s+open/.test(s) &&
          s.includes("opencode"),
        "the sessions view",
      );
      await tmux.keys("]");
      captures.storage = await tmux.until(
        (s) => s.includes("[storage]") && s.includes("total") && s.includes("log (JSONL)"),
        "the storage view",
      );

      // A terminal 20 columns wide, then wide again: redrawn to fit each time.
      await tmux.run("resize-window", "-t", "tui", "-x", "20", "-y", "10");
      captures.narrow = await tmux.until(
        (s) => s.includes("[storage] 6/6") && s.split("\n").every((l) => l.length <= 20),
        "the narrow screen",
      );
      await tmux.run("resize-window", "-t", "tui", "-x", "100", "-y", "24");
      await tmux.until((s) => s.includes("sessions [storage]"), "the wide screen again");

      await tmux.keys("q");
      const after = await tmux.until(
        (s) => /EXIT=\d+\n.*icanon/.test(s),
        "mcpx ending, and the terminal's modes after it",
      );
      assert.match(after, /EXIT=0/);
      // The terminal is as it was: line editing and echo back, mouse reporting and the
      // alternate screen off.
      assert.match(after, /(^| )icanon( |$)/m);
      assert.match(after, /(^| )echo( |$)/m);
      assert.equal(await tmux.flag("alternate_on"), "0");
      assert.equal(await tmux.flag("mouse_sgr_flag"), "0");
      assert.equal(await tmux.flag("mouse_button_flag"), "0");

      // Ctrl-C, with a filter open, ends it and restores the terminal just the same.
      await tmux.run("kill-session", "-t", "tui");
      await tmux.run("new-session", "-d", "-s", "tui", "-x", "100", "-y", "24", `sh ${script}`);
      await tmux.until((s) => s.includes("[tools]") && s.includes("namespaces 3"), "the browser");
      await tmux.keys("/", "e", "C-c");
      const interrupted = await tmux.until(
        (s) => /EXIT=\d+\n.*icanon/.test(s),
        "mcpx ending on Ctrl-C",
      );
      assert.match(interrupted, /EXIT=0/);
      assert.match(interrupted, /(^| )icanon( |$)/m);
      assert.equal(await tmux.flag("alternate_on"), "0");
      assert.equal(await tmux.flag("mouse_sgr_flag"), "0");
    } finally {
      await tmux.run("kill-server").catch(() => "");
      const keep = Deno.env.get("TUI_CAPTURES");
      if (keep) await Deno.writeTextFile(keep, JSON.stringify(captures, null, 2));
    }
  },
});
