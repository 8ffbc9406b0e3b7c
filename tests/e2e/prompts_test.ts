import assert from "node:assert/strict";
import { join } from "node:path";
import { alive, npmServer, Sandbox, until } from "../_helpers.ts";
import { namesServer } from "../fixtures/servers.ts";

// `mcpx explore` and `mcpx repl` in a real terminal: tmux runs them, send-keys types, and
// capture-pane reads the screen. tmux comes from apt (.ci/run installs it).

const REPO = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** The bundled example's servers (examples/mcpx.json), from tests/npm rather than npx. */
function exampleConfig(box: Sandbox, memory: Record<string, unknown> = {}) {
  return {
    mcpServers: {
      everything: { ...npmServer("server-everything"), mcpx: { description: "echo, add" } },
      filesystem: {
        ...npmServer("server-filesystem", [join(box.root, "work")]),
        mcpx: { roots: [join(box.root, "work")] },
      },
      memory: {
        ...npmServer("server-memory"),
        env: { MEMORY_FILE_PATH: join(box.root, "memory.jsonl") },
        mcpx: memory,
      },
    },
  };
}

/** A tmux server of its own (its socket in the sandbox), one window running a plain shell. */
class Terminal {
  readonly socket: string;
  constructor(readonly box: Sandbox) {
    this.socket = join(box.root, "tmux.sock");
  }

  async tmux(...args: string[]): Promise<string> {
    const out = await new Deno.Command("tmux", {
      args: ["-S", this.socket, ...args],
      env: { ...this.box.env, TERM: "xterm-256color", SHELL: "/bin/sh" },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    if (!out.success) throw new Error(`tmux ${args.join(" ")}: ${dec.decode(out.stderr)}`);
    return dec.decode(out.stdout);
  }

  static async open(box: Sandbox, columns = 100, rows = 30): Promise<Terminal> {
    const t = new Terminal(box);
    await t.tmux(
      "new-session",
      "-d",
      "-s",
      "t",
      "-x",
      String(columns),
      "-y",
      String(rows),
      "-c",
      join(box.root, "work"),
      "sh",
    );
    await t.tmux("set-option", "-t", "t", "history-limit", "5000");
    await t.type("PS1='$ '");
    await t.key("Enter");
    return t;
  }

  /** The command line that runs mcpx as the tests do (`deno run` of main.ts). */
  static mcpx(args: string): string {
    return `${Deno.execPath()} run -A --config ${REPO}/deno.json ${REPO}/main.ts ${args}`;
  }

  type(text: string): Promise<string> {
    return this.tmux("send-keys", "-t", "t", "-l", text);
  }

  /**
   * Types a line at the prompt and presses Enter once the line shows on the screen, so that a
   * key is never sent before the prompt has taken the ones before it.
   */
  async enter(text: string): Promise<void> {
    await this.type(text);
    // The prompt wraps a long line itself, with a line break: read the screen without them.
    const tail = text.slice(-24);
    let last = "";
    const shown = await until(async () =>
      (last = await this.screen()).replaceAll("\n", "").includes(tail)
    );
    if (!shown) throw new Error(`the screen never showed what was typed, ${tail}:\n${last}`);
    await this.key("Enter");
  }

  key(...keys: string[]): Promise<string> {
    return this.tmux("send-keys", "-t", "t", ...keys);
  }

  /** The whole window with its scrollback, wrapped lines joined. */
  screen(): Promise<string> {
    return this.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "t");
  }

  /** Waits until the screen shows `text` (or matches it), then returns the screen. */
  async sees(text: string | RegExp, ms = 60_000): Promise<string> {
    let last = "";
    const found = await until(async () => {
      last = await this.screen();
      return typeof text === "string" ? last.includes(text) : text.test(last);
    }, ms);
    if (!found) throw new Error(`the screen never showed ${text}:\n${last}`);
    return last;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.tmux("kill-server").catch(() => {});
  }
}

/** Whether the shell's terminal is back in cooked mode with echo, as before the prompt. */
async function terminalRestored(t: Terminal): Promise<void> {
  await t.type("stty -a | tr ' ' '\\n' | grep -x -e icanon -e echo | tr '\\n' ' '; echo :stty");
  await t.key("Enter");
  await t.sees(/icanon echo :stty/);
}

Deno.test("mcpx explore in tmux: signatures, completion, a call with prompted arguments, resize, Ctrl-C", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", exampleConfig(box));
  assert.equal((await box.mcpx(["refresh"])).code, 0);
  await using t = await Terminal.open(box);
  await t.enter(Terminal.mcpx("explore"));
  await t.sees("mcpx explore: 3 namespaces (everything, filesystem, memory). Type help");
  await t.sees(/\nmcpx>\s*$/);

  // A bare namespace: its signatures, and the command that prints them.
  await t.sees(/\nmcpx>\s*$/);
  await t.enter("memory");
  let screen = await t.sees("→ mcpx types memory\n");
  assert.match(screen, /function read_graph\(\): Promise/);

  // Tab completes a tool name.
  await t.sees(/\nmcpx>\s*$/);
  await t.type("everything.ec");
  await t.key("Tab");
  await t.sees("mcpx> everything.echo");
  await t.key("Enter");
  screen = await t.sees("→ mcpx types everything.echo\n");
  assert.match(screen, /function echo\(args: \{\n.*message: string;/);

  // call: the enum is a choice (Down moves to the second); the optional boolean's default is
  // the schema's, taken with Enter.
  await t.sees(/\nmcpx>\s*$/);
  await t.enter("call everything.get_annotated_message");
  await t.sees("? messageType");
  screen = await t.screen();
  assert.match(screen, /error\n.*success\n.*debug/);
  // Narrower while the question is open: it is drawn again and still answers.
  await t.tmux("resize-window", "-t", "t", "-x", "60", "-y", "24");
  await t.key("Down");
  await t.key("Enter");
  await t.sees("? includeImage (optional)");
  await t.key("Enter");
  screen = await t.sees(
    `→ mcpx call everything.get_annotated_message '{"messageType":"success","includeImage":false}'`,
  );
  assert.match(screen, /includeImage \(optional\)[^✔]* false \(default\)\n/);
  assert.match(screen, /Operation completed successfully/);

  // A typed argument, then Ctrl-C at a question cancels only that call.
  await t.sees(/\nmcpx>\s*$/);
  await t.enter("call everything.echo");
  await t.sees("? message");
  await t.enter("hello from tmux");
  await t.sees(`→ mcpx call everything.echo '{"message":"hello from tmux"}'`);
  screen = await t.screen();
  assert.match(screen, /Echo: hello from tmux/);
  await t.sees(/\nmcpx>\s*$/);
  await t.enter("call everything.get_sum");
  await t.sees("? a");
  await t.key("C-c");
  await t.sees(/Call cancelled\nmcpx>\s*$/);

  // A terminal 20 columns wide still takes a command and shows its footer.
  await t.tmux("resize-window", "-t", "t", "-x", "20", "-y", "24");
  await t.sees(/\nmcpx>\s*$/);
  await t.enter("status");
  await t.sees("→ mcpx status\n");
  await t.tmux("resize-window", "-t", "t", "-x", "100", "-y", "30");

  // chain with no argument lists the calls just made.
  await t.sees(/\nmcpx>\s*$/);
  await t.enter("chain");
  screen = await t.sees("chain <id> shows what led to one of them.\n→ mcpx log sql");
  assert.match(screen, /cal-[0-9a-f]+\s+everything\.echo/);

  // Ctrl-C at the top prompt leaves, and the terminal is as it was.
  await t.sees(/\nmcpx>\s*$/);
  await t.key("C-c");
  await t.sees(/mcpx>\s*\n\$\s*$/);
  await terminalRestored(t);
  const history = await Deno.readTextFile(join(box.root, "state", "mcpx", "explore_history"));
  assert.match(history, /"memory"\n/);
  assert.match(history, /"call everything.echo"\n/);
});

Deno.test("mcpx repl in tmux: a memory entity made in one statement is there in the next, one session", async () => {
  await using box = await Sandbox.create();
  await box.write(
    "work/.mcpx.json",
    exampleConfig(box, { sharing: "exclusive", scope: "session" }),
  );
  await box.write("work/vars.env", "GREETING=hello\n");
  assert.equal((await box.mcpx(["refresh"])).code, 0);
  await using t = await Terminal.open(box);
  // A file of variables that is not there: one line, before any prompt.
  await t.enter(Terminal.mcpx("repl --env-file missing.env") + "; echo status=$?");
  const refused = await t.sees("\nstatus=2\n");
  assert.match(refused, /\nmcpx: Cannot read --env-file "missing\.env": [^\n]*\nstatus=2\n/);
  await t.enter(Terminal.mcpx("repl --env-file vars.env"));
  await t.sees(/one session \(repl-[0-9a-f-]+\)[\s\S]*\n>\s*$/);

  await t.sees(/\n>\s*$/);
  await t.enter(
    'await memory.create_entities({ entities: [{ name: "Ada", entityType: "person", observations: ["wrote notes"] }] })',
  );
  await t.sees('"name": "Ada"');
  await t.sees(/\n>\s*$/);
  await t.enter("const graph = await memory.read_graph()");
  await t.sees(/\n>\s*$/);
  await t.enter('graph.entities.map((e) => e.name).join(",") + " " + Deno.env.get("GREETING")');
  await t.sees("\nAda hello\n");

  // An open brace continues on the next line.
  await t.sees(/\n>\s*$/);
  await t.enter("function twice(x: number) {");
  await t.sees(/\n\.\.\.\s*$/);
  await t.enter("return x * 2 }");
  await t.sees(/\n>\s*$/);
  await t.enter("twice(21)");
  await t.sees("\n42\n");

  // One memory process, leased by the repl's session, while it runs.
  const status = await box.json<
    { servers: { namespace: string; instances: { key: string; pid: number }[] }[] }
  >(["status"]);
  const leased = status.servers.find((s) => s.namespace === "memory")!.instances;
  assert.equal(leased.length, 1);
  assert.match(leased[0].key, /^session:repl-/);

  // Tab completes a namespace's tools.
  await t.sees(/\n>\s*$/);
  await t.type("memory.read_gr");
  await t.key("Tab");
  await t.sees("> memory.read_graph");
  await t.key("C-u");

  // Ctrl-D ends the repl, its session and the process its session leased.
  await t.key("C-d");
  await t.sees(/\n\$\s*$/);
  assert.ok(await until(() => !alive(leased[0].pid)), "the session's memory process stopped");
  await terminalRestored(t);

  // Ctrl-C while a statement runs ends the repl (exit 130) and its session, and nothing crashes.
  await t.enter(Terminal.mcpx("repl"));
  await t.sees(/one session \(repl-[0-9a-f-]+\)[\s\S]*\n>\s*$/);
  await t.type("await memory.read_graph(); await new Promise((r) => setTimeout(r, 600_000))");
  await t.key("Enter");
  let again: { key: string; pid: number }[] = [];
  assert.ok(
    await until(async () => {
      const s = await box.json<
        { servers: { namespace: string; instances: { key: string; pid: number }[] }[] }
      >(["status"]);
      again = s.servers.find((x) => x.namespace === "memory")!.instances;
      return again.length === 1;
    }),
    "the second repl leased a memory process",
  );
  await t.key("C-c");
  await t.sees(/\n\$\s*$/);
  await t.enter("echo status=$?");
  await t.sees("\nstatus=130\n");
  assert.ok(await until(() => !alive(again[0].pid)), "its memory process stopped");
  await terminalRestored(t);
});

Deno.test("mcpx repl in tmux leaves on exit and quit, as on .quit, with status 0", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { names: namesServer() } });
  await using t = await Terminal.open(box);
  for (const [i, word] of ["exit", "quit", ".quit"].entries()) {
    await t.enter(Terminal.mcpx("repl") + `; echo left-${i}=$?`);
    await t.sees(/one session \(repl-[0-9a-f-]+\)[\s\S]*\n>\s*$/);
    await t.enter(word);
    const screen = await t.sees(`\nleft-${i}=0\n`);
    assert.doesNotMatch(screen, /ReferenceError/, `${word} is not evaluated`);
  }
  await terminalRestored(t);
});

Deno.test("mcpx explore and mcpx repl with stdin from /dev/null exit at once, saying why", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", exampleConfig(box));
  for (const command of ["explore", "repl"]) {
    const r = await box.mcpx([command]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stdout, "");
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`^mcpx: mcpx ${command} needs a terminal \\(stdin is not`));
    assert.match(r.stderr, command === "explore" ? /mcpx types <namespace>/ : /mcpx exec/);
  }
});
