import assert from "node:assert/strict";
import { join } from "node:path";
import { echoArgsServer, faultyServer } from "../fixtures/servers.ts";
import {
  alive,
  daemonLog,
  freePort,
  npmServer,
  npmServerScript,
  Sandbox,
  until,
} from "../_helpers.ts";

/** What `mcpx --json call` prints: the MCP result envelope, and who served it under `mcpx`. */
interface Envelope {
  content: { type: string; text?: string; [k: string]: unknown }[];
  structuredContent?: unknown;
  isError?: boolean;
  mcpx: {
    server: string;
    tool: string;
    instance: { id: string; pid: number; key: string };
    durationMs: number;
  };
  truncated?: boolean;
  spilledTo?: string;
  bytes?: number;
}

type Call = Envelope;

/** The text of an envelope's first content item. */
const text = (e: Envelope) => e.content[0]?.text;

interface Status {
  servers: {
    namespace: string;
    state: string;
    error?: string;
    instances: { key: string; pid: number; calls: number; stderrTail: string[] }[];
  }[];
}

Deno.test("call: real servers over stdio, result forms, and what goes wrong", async () => {
  await using box = await Sandbox.create();
  await box.write("files/hello.txt", "hello from a file");
  await box.write("work/.mcpx.json", {
    mcpServers: {
      everything: npmServer("server-everything"),
      // The server works within the roots mcpx answers with (by default the caller's directory),
      // in place of its arguments' directories: the roots name the same one.
      filesystem: {
        ...npmServer("server-filesystem", [join(box.root, "files")]),
        mcpx: { roots: [join(box.root, "files")] },
      },
      memory: {
        ...npmServer("server-memory"),
        env: { MEMORY_FILE_PATH: join(box.root, "memory.jsonl") },
      },
      fixture: faultyServer(),
    },
  });
  const echo = await box.mcpx(["call", "everything.echo", "message=hi there"]);
  assert.equal(echo.code, 0, echo.stderr);
  assert.equal(echo.stdout, "Echo: hi there\n");

  const json = await box.json<Call>(["call", "everything.echo", '{"message":"x"}']);
  assert.equal(text(json), "Echo: x");
  assert.equal(json.mcpx.instance.key, "global");
  const raw = await box.json<Call>(["call", "everything.echo", "message=y", "--raw"]);
  assert.deepEqual(raw.content, [{ type: "text", text: "Echo: y" }]);
  const again = await box.json<Call>(["call", "everything.echo", "message=z"]);
  assert.equal(again.mcpx.instance.pid, json.mcpx.instance.pid, "a shared global server is reused");

  const listing = await box.mcpx([
    "call",
    "filesystem.list_directory",
    `path=${join(box.root, "files")}`,
  ]);
  assert.equal(listing.code, 0, listing.stderr);
  assert.match(listing.stdout, /hello\.txt/);

  await box.json([
    "call",
    "memory.create_entities",
    JSON.stringify({
      entities: [{ name: "mcpx", entityType: "tool", observations: ["leases servers"] }],
    }),
  ]);
  const graph = JSON.parse((await box.mcpx(["call", "memory.read_graph"])).stdout) as {
    entities: { name: string }[];
  };
  assert.deepEqual(graph.entities.map((e) => e.name), ["mcpx"]);

  assert.deepEqual((await box.mcpx(["call", "fixture.structured"])).stdout, '{\n  "a": 1\n}\n');
  assert.deepEqual((await box.mcpx(["call", "fixture.json_text"])).stdout, '{\n  "b": 2\n}\n');
  assert.equal(text(await box.json<Call>(["call", "fixture.fancy_name"])), "fancy");

  const missing = await box.mcpx(["call", "everything.echo"]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /Invalid arguments for everything\.echo: "message" is required/);
  const wrongType = await box.mcpx(["call", "fixture.sleep", "ms=soon"]);
  assert.equal(wrongType.code, 2);
  assert.match(wrongType.stderr, /"ms"/);
  const noTool = await box.mcpx(["call", "everything.ecoh", "message=x"]);
  assert.equal(noTool.code, 5);
  assert.match(noTool.stderr, /no tool "ecoh": did you mean "echo"\?/);
  const noServer = await box.mcpx(["call", "everythin.echo"]);
  assert.equal(noServer.code, 5);
  assert.match(noServer.stderr, /No server "everythin": did you mean "everything"\?/);
  const failed = await box.mcpx(["call", "fixture.fail"]);
  assert.equal(failed.code, 8);
  assert.match(failed.stderr, /fixture\.fail failed: it failed on purpose/);
  assert.equal(failed.stdout, "", "an error result is never reported as success");
  const badWords = await box.mcpx(["call", "everything"]);
  assert.equal(badWords.code, 2);
  assert.match(badWords.stderr, /is not <namespace\.tool>/);
});

Deno.test("call: the same over /v1 with curl, including POST /v1/call/<ns>/<tool>", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { everything: npmServer("server-everything") },
  });
  const health = await box.json<{ socket: string; fingerprint: string }>(["health"]);
  // Every /v1 request carries the daemon's token, from its 0600 file beside the record.
  const token = box.daemonToken(health);
  const curl = async (path: string, body: unknown) => {
    const out = await new Deno.Command("curl", {
      args: [
        "-s",
        "--unix-socket",
        health.socket,
        "-X",
        "POST",
        "-H",
        "content-type: application/json",
        "-H",
        `x-mcpx-token: ${token}`,
        "-d",
        JSON.stringify(body),
        `http://mcpx${path}`,
      ],
      stdout: "piped",
    }).output();
    return JSON.parse(new TextDecoder().decode(out.stdout));
  };
  const direct = await curl("/v1/call/everything/echo", { message: "curl" });
  assert.equal(direct.result, "Echo: curl");
  const general = await curl("/v1/tools/call", {
    server: "everything",
    tool: "echo",
    arguments: { message: "v1" },
  });
  assert.equal(general.result, "Echo: v1");
  const problem = await curl("/v1/call/everything/echo", {});
  assert.equal(problem.code, "INVALID_ARGUMENTS");
  assert.equal(problem.status, 400);
});

Deno.test("call: server-everything over Streamable HTTP on 127.0.0.1, no shim process", async () => {
  await using box = await Sandbox.create();
  const port = freePort();
  const server = new Deno.Command("node", {
    args: [npmServerScript("server-everything"), "streamableHttp"],
    env: { PORT: String(port) },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    const reader = server.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!seen.includes("listening")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`server-everything exited before listening: ${seen}`);
      seen += value;
    }
    reader.releaseLock();
    void server.stderr.cancel().catch(() => {});
    await box.write("work/.mcpx.json", {
      mcpServers: { remote: { url: `http://127.0.0.1:${port}/mcp` } },
    });
    const out = await box.json<Call>(["call", "remote.echo", "message=over http"]);
    assert.equal(text(out), "Echo: over http");
    assert.equal(out.mcpx.instance.pid, null, "no process: the daemon speaks HTTP itself");
    const status = await box.json<Status>(["status"]);
    assert.equal(status.servers[0].instances.length, 1);
  } finally {
    server.kill("SIGKILL");
    await server.status;
  }
});

Deno.test("faults: a server that will not start is reported with its stderr and cools down", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { broken: faultyServer(["--exit-at-start"]) } });
  const first = await box.mcpx(["call", "broken.echo", "text=x"]);
  assert.equal(first.code, 6);
  assert.match(first.stderr, /Cannot start server "broken".*refusing to start/);
  const second = await box.mcpx(["call", "broken.echo", "text=x"]);
  assert.equal(second.code, 6);
  assert.match(second.stderr, /retrying in \d+s/);
  const status = await box.json<Status>(["status"]);
  assert.equal(status.servers[0].state, "error", "it never vanishes from listings");
  assert.match(status.servers[0].error ?? "", /refusing to start/);
  const human = await box.mcpx(["status"]);
  assert.match(human.stdout, /broken: Cannot start server "broken"/);
});

Deno.test("faults: slow start, stderr flood, crash mid-call, hang past callTimeout", async () => {
  await using box = await Sandbox.create();
  const cancelLog = join(box.root, "cancelled.log");
  await Deno.writeTextFile(cancelLog, "");
  await box.write("work/.mcpx.json", {
    mcpServers: {
      slow: { ...faultyServer(["--slow-start", "700"]) },
      noisy: faultyServer(["--flood-stderr", "4"]),
      fragile: faultyServer(),
      stuck: {
        ...faultyServer([], { allowCancelLog: cancelLog }),
        env: { FIXTURE_CANCEL_LOG: cancelLog },
        mcpx: { callTimeout: "500ms" },
      },
    },
  });
  assert.equal(text(await box.json<Call>(["call", "slow.echo", "text=late"])), "late");
  assert.equal(text(await box.json<Call>(["call", "noisy.echo", "text=loud"])), "loud");
  const noisy = (await box.json<Status>(["status"])).servers.find((s) => s.namespace === "noisy")!;
  const tail = noisy.instances[0].stderrTail;
  assert.ok(tail.length <= 10 && tail.every((l) => l.length <= 2048), "the stderr tail is bounded");

  const before = await box.json<Call>(["call", "fragile.pid"]);
  const crash = await box.mcpx(["call", "fragile.crash"]);
  assert.equal(crash.code, 6);
  assert.match(crash.stderr, /fragile/);
  const after = await box.json<Call>(["call", "fragile.pid"]);
  assert.notEqual(
    after.mcpx.instance.pid,
    before.mcpx.instance.pid,
    "the next call gets a fresh process",
  );

  const hang = await box.mcpx(["call", "stuck.hang"]);
  assert.equal(hang.code, 7);
  assert.match(hang.stderr, /did not answer within 500 ms/);
  assert.ok(
    await until(async () => (await Deno.readTextFile(cancelLog)).includes("cancelled"), 3000),
    "notifications/cancelled reached the server",
  );
  assert.equal(
    text(await box.json<Call>(["call", "stuck.echo", "text=still here"])),
    "still here",
  );
});

Deno.test("faults: kill -9 of a server mid-call fails that call only; the next gets a fresh process", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      victim: { ...faultyServer(), mcpx: { callTimeout: "20s" } },
      bystander: faultyServer(),
    },
  });
  const bystander = await box.json<Call>(["call", "bystander.pid"]);
  const first = await box.json<Call>(["call", "victim.pid"]);
  const pending = box.mcpx(["call", "victim.sleep", "ms=15000"]);
  await until(async () =>
    (await box.json<Status>(["status"])).servers.some((s) =>
      s.namespace === "victim" && s.instances[0]?.calls === 2
    )
  );
  const t0 = Date.now();
  Deno.kill(first.mcpx.instance.pid, "SIGKILL");
  const failed = await pending;
  assert.equal(failed.code, 6, failed.stderr);
  assert.match(failed.stderr, /victim/);
  assert.ok(Date.now() - t0 < 20_000, "the caller heard within callTimeout");
  const next = await box.json<Call>(["call", "victim.pid"]);
  assert.notEqual(next.mcpx.instance.pid, first.mcpx.instance.pid);
  const still = await box.json<Call>(["call", "bystander.pid"]);
  assert.equal(still.mcpx.instance.pid, bystander.mcpx.instance.pid, "nothing else was disturbed");
});

Deno.test("scope: sessions, parent sessions, per-call and pid keys", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      sess: { ...faultyServer(), mcpx: { sharing: "exclusive", scope: "session" } },
      parent: { ...faultyServer(), mcpx: { sharing: "exclusive", scope: "parent-session" } },
      percall: { ...faultyServer(), mcpx: { scope: "call" } },
      bypid: { ...faultyServer(), mcpx: { scope: "pid" } },
    },
  });
  const a = { MCPX_SESSION_ID: "alpha" };
  const b = { MCPX_SESSION_ID: "beta" };
  await box.json(["call", "sess.set", "key=k", "value=from-alpha"], { env: a });
  const sameA = await box.json<Call>(["call", "sess.get", "key=k"], { env: a });
  assert.equal(text(sameA), "from-alpha", "two calls under one session reach one process");
  const otherB = await box.json<Call>(["call", "sess.get", "key=k"], { env: b });
  assert.notEqual(text(otherB), "from-alpha", "another session sees nothing of it");
  assert.notEqual(otherB.mcpx.instance.pid, sameA.mcpx.instance.pid);
  const flag = await box.json<Call>(["call", "sess.get", "key=k", "--session", "alpha"]);
  assert.equal(text(flag), "from-alpha", "--session joins a lease");

  const root1 = await box.json<Call>(["call", "parent.pid"], {
    env: { MCPX_PARENT_SESSION_ID: "root", MCPX_SESSION_ID: "sub1" },
  });
  const root2 = await box.json<Call>(["call", "parent.pid"], {
    env: { MCPX_PARENT_SESSION_ID: "root", MCPX_SESSION_ID: "sub2" },
  });
  const other = await box.json<Call>(["call", "parent.pid"], {
    env: { MCPX_PARENT_SESSION_ID: "other" },
  });
  assert.equal(root1.mcpx.instance.pid, root2.mcpx.instance.pid);
  assert.notEqual(other.mcpx.instance.pid, root1.mcpx.instance.pid);
  const status = await box.json<Status>(["status"]);
  assert.deepEqual(
    status.servers.find((s) => s.namespace === "parent")!.instances.map((i) => i.key).sort(),
    ["psession:other", "psession:root"],
  );

  const c1 = await box.json<Call>(["call", "percall.pid"]);
  const c2 = await box.json<Call>(["call", "percall.pid"]);
  assert.notEqual(c1.mcpx.instance.pid, c2.mcpx.instance.pid);
  assert.ok(
    await until(() => !alive(c1.mcpx.instance.pid) && !alive(c2.mcpx.instance.pid)),
    "per-call processes stop after their call",
  );

  // With no session id a session-scoped server degrades to per-call isolation and says so once.
  const d1 = await box.json<Call>(["call", "sess.pid"]);
  const d2 = await box.json<Call>(["call", "sess.pid"]);
  assert.notEqual(d1.mcpx.instance.pid, d2.mcpx.instance.pid);
  const degraded = (await daemonLog(box)).filter((r) => r.event === "scope.degraded");
  assert.equal(degraded.length, 1);
  assert.match(String(degraded[0].msg), /MCPX_SESSION_ID/);

  // pid scope: the instance belongs to the CLI's parent (here a shell) and goes when it exits.
  const viaShell = await new Deno.Command("sh", {
    args: [
      "-c",
      `exec 3>&1; ${Deno.execPath()} run -A --config ${
        new URL("../../deno.json", import.meta.url).pathname
      } ${new URL("../../main.ts", import.meta.url).pathname} --json call bypid.pid`,
    ],
    cwd: join(box.root, "work"),
    env: box.env,
    clearEnv: true,
    stdout: "piped",
  }).output();
  const byPid = JSON.parse(new TextDecoder().decode(viaShell.stdout)) as Call;
  assert.match(byPid.mcpx.instance.key, /^pid:\d+$/);
  assert.ok(
    await until(() => !alive(byPid.mcpx.instance.pid), 5000),
    "stopped once its process exited",
  );
});

Deno.test("ops: restart (whole namespace or one session), refresh, trace, and stop leaves nothing", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      sess: { ...faultyServer(), mcpx: { sharing: "exclusive", scope: "session" } },
      everything: npmServer("server-everything"),
    },
  });
  const env = { MCPX_TRACE: "1" };
  const a1 = await box.json<Call>(["call", "sess.pid"], { env: { ...env, MCPX_SESSION_ID: "a" } });
  const b1 = await box.json<Call>(["call", "sess.pid"], { env: { MCPX_SESSION_ID: "b" } });
  const r = await box.json<{ stopped: number }>(["restart", "sess", "--session", "a"]);
  assert.equal(r.stopped, 1);
  const a2 = await box.json<Call>(["call", "sess.pid"], { env: { MCPX_SESSION_ID: "a" } });
  const b2 = await box.json<Call>(["call", "sess.pid"], { env: { MCPX_SESSION_ID: "b" } });
  assert.notEqual(a2.mcpx.instance.pid, a1.mcpx.instance.pid);
  assert.equal(
    b2.mcpx.instance.pid,
    b1.mcpx.instance.pid,
    "restarting one session leaves the others",
  );
  assert.equal((await box.json<{ stopped: number }>(["restart", "sess"])).stopped, 2);

  const refreshed = await box.json<{ servers: { namespace: string; tools: number }[] }>([
    "refresh",
  ]);
  const counts = Object.fromEntries(refreshed.servers.map((s) => [s.namespace, s.tools]));
  assert.ok(counts.everything >= 10, JSON.stringify(counts));
  assert.ok(counts.sess >= 10);

  const traced = (await daemonLog(box)).filter((r) => r.event === "call.trace");
  assert.ok(traced.length >= 1);
  assert.match(String(traced[0].msg), /sess\.pid served by sess#\d+/);

  await box.json(["call", "everything.echo", "message=keep me"]);
  await box.json(["call", "sess.pid"], { env: { MCPX_SESSION_ID: "a" } });
  const pids = (await box.json<Status>(["status"])).servers.flatMap((s) =>
    s.instances.map((i) => i.pid)
  );
  assert.equal(pids.length, 2, "refresh left no instance behind; the two calls did");
  await box.json(["stop"]);
  assert.ok(pids.every((p) => !alive(p)), "no server outlives the daemon");
});

Deno.test("credentials: an unset variable is named before the first request", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: {
      api: {
        url: "http://127.0.0.1:9/mcp",
        auth: { type: "bearer", token: "${MCPX_TEST_API_TOKEN}" },
      },
    },
  });
  const r = await box.mcpx(["call", "api.anything"]);
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /needs \$\{MCPX_TEST_API_TOKEN\}/);
  assert.doesNotMatch(r.stderr, /Bearer/);
});

Deno.test("scope: repo and worktree keys come from the caller's checkout, read without git", async () => {
  await using box = await Sandbox.create();
  const git = async (cwd: string, ...args: string[]) => {
    const out = await new Deno.Command("git", {
      args: ["-c", "user.name=t", "-c", "user.email=t@t", ...args],
      cwd: join(box.root, cwd),
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  };
  await box.write("work/one/sub/x", "");
  await box.write("work/two/x", "");
  await git("work/one", "init", "-q");
  await git("work/one", "commit", "-q", "--allow-empty", "-m", "x");
  await git("work/two", "init", "-q");
  await git("work/one", "worktree", "add", "-q", join(box.root, "work/one-wt"));
  await box.write("work/.mcpx.json", {
    mcpServers: {
      perrepo: { ...faultyServer(), mcpx: { scope: "repo" } },
      pertree: { ...faultyServer(), mcpx: { scope: "worktree" } },
    },
  });
  const config = { MCPX_CONFIG: join(box.root, "work/.mcpx.json") };
  const at = (cwd: string, target: string) =>
    box.json<Call>(["call", target], { cwd, env: config });
  const top = await at("work/one", "perrepo.pid");
  const deep = await at("work/one/sub", "perrepo.pid");
  const wt = await at("work/one-wt", "perrepo.pid");
  const other = await at("work/two", "perrepo.pid");
  assert.equal(
    deep.mcpx.instance.pid,
    top.mcpx.instance.pid,
    "one process per clone, from any subfolder",
  );
  assert.equal(
    wt.mcpx.instance.pid,
    top.mcpx.instance.pid,
    "a linked worktree is the same repository",
  );
  assert.notEqual(other.mcpx.instance.pid, top.mcpx.instance.pid);
  assert.equal(
    top.mcpx.instance.key,
    `repo:${await Deno.realPath(join(box.root, "work/one/.git"))}`,
  );
  const treeMain = await at("work/one/sub", "pertree.pid");
  const treeLinked = await at("work/one-wt", "pertree.pid");
  assert.notEqual(
    treeMain.mcpx.instance.pid,
    treeLinked.mcpx.instance.pid,
    "one process per checkout",
  );
  assert.equal(
    treeLinked.mcpx.instance.key,
    `worktree:${await Deno.realPath(join(box.root, "work/one-wt"))}`,
  );
});

Deno.test("scope: a repository laid out for git alone (core.worktree) is asked of git once, then shared", async () => {
  await using box = await Sandbox.create();
  const git = async (cwd: string, ...args: string[]) => {
    const out = await new Deno.Command("git", {
      args: ["-c", "init.defaultBranch=main", ...args],
      cwd: join(box.root, cwd),
      clearEnv: true,
      env: { PATH: box.env.PATH, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  };
  await box.write("work/moved/x", "");
  await box.write("elsewhere/x", "");
  await git("work/moved", "init", "-q");
  await git("work/moved", "config", "core.worktree", "../../../elsewhere");
  await box.write("work/.mcpx.json", {
    mcpServers: { perrepo: { ...faultyServer(), mcpx: { scope: "repo" } } },
  });
  const config = { MCPX_CONFIG: join(box.root, "work/.mcpx.json") };
  const first = await box.json<Call>(["call", "perrepo.pid"], { cwd: "work/moved", env: config });
  const again = await box.json<Call>(["call", "perrepo.pid"], { cwd: "work/moved", env: config });
  assert.equal(again.mcpx.instance.pid, first.mcpx.instance.pid, "one process for the repository");
  assert.equal(
    first.mcpx.instance.key,
    `repo:${await Deno.realPath(join(box.root, "work/moved/.git"))}`,
  );
  const said = await box.mcpx(["log", "--grep", "asked of git once"], { env: config });
  assert.equal(said.code, 0, said.stderr);
  assert.equal(
    said.stdout.split("\n").filter((l) => l.includes("asked of git once")).length,
    1,
    said.stdout,
  );
  await box.json(["stop"], { env: config });
});

Deno.test("stop: a call in flight fails at once, the daemon stops cleanly, and nothing restarts it", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { stuck: { ...faultyServer(), mcpx: { callTimeout: "60s" } } },
  });
  await box.json(["call", "stuck.pid"]);
  const pending = box.mcpx(["call", "stuck.hang"]);
  await until(async () =>
    (await box.json<Status>(["status"])).servers[0].instances[0]?.calls === 2
  );
  const t0 = Date.now();
  const stop = await box.json<{ stopped: { forced: boolean }[] }>(["stop", "--all"]);
  assert.deepEqual(stop.stopped.map((s) => s.forced), [false], "stopped politely, not killed");
  const call = await pending;
  assert.notEqual(call.code, 0);
  assert.ok(Date.now() - t0 < 10_000, "the call did not wait for its callTimeout");
  await new Promise((r) => setTimeout(r, 500));
  assert.deepEqual(box.processes(), [], "the interrupted call did not start a new daemon");
});

Deno.test("call: key=value keeps text for string fields and JSON for the rest", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { fixture: faultyServer() } });
  assert.equal(text(await box.json<Call>(["call", "fixture.set", "key=a", "value=1"])), "ok");
  assert.equal(text(await box.json<Call>(["call", "fixture.get", "key=a"])), "1");
  assert.equal(text(await box.json<Call>(["call", "fixture.echo", "text=true"])), "true");
  const ms = await box.mcpx(["call", "fixture.sleep", "ms=5"]);
  assert.equal(ms.code, 0, "a number field still gets a number");
  const bad = await box.mcpx(["call", "fixture.sleep", "ms=soon"]);
  assert.equal(bad.code, 2, "and text where a number is wanted is still refused");
});

Deno.test("faults: a call whose client goes away is cancelled, not left running until callTimeout", async () => {
  await using box = await Sandbox.create();
  const cancelLog = join(box.root, "cancelled.log");
  await Deno.writeTextFile(cancelLog, "");
  await box.write("work/.mcpx.json", {
    mcpServers: {
      stuck: {
        ...faultyServer([], { allowCancelLog: cancelLog }),
        env: { FIXTURE_CANCEL_LOG: cancelLog },
        mcpx: { sharing: "exclusive", callTimeout: "60s" },
      },
    },
  });
  await box.json(["call", "stuck.echo", "text=warm"]);
  const repo = new URL("../..", import.meta.url).pathname;
  const client = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", `${repo}deno.json`, `${repo}main.ts`, "call", "stuck.hang"],
    cwd: join(box.root, "work"),
    env: box.env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const leases = async () =>
    ((await box.json<Status>(["status"])).servers[0].instances[0] as unknown as { leases: number })
      .leases;
  assert.ok(await until(async () => (await leases()) === 1), "the hanging call is in flight");
  client.kill("SIGKILL");
  await client.status;
  assert.ok(
    await until(async () => (await Deno.readTextFile(cancelLog)).includes("cancelled"), 5000),
    "notifications/cancelled reached the server",
  );
  assert.ok(await until(async () => (await leases()) === 0, 5000), "the lease was given back");
  const next = await box.json<Call>(["call", "stuck.echo", "text=free"]);
  assert.equal(text(next), "free", "the exclusive server serves the next caller at once");
});

Deno.test("call --json: the MCP result envelope with the serving instance under mcpx; an error printed once", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { everything: npmServer("server-everything"), fixture: faultyServer() },
  });
  // What the reference does: `mcpx --json call … | jq -r '.content[0].text'`.
  const piped = await new Deno.Command("sh", {
    args: [
      "-c",
      `${Deno.execPath()} run -A --config "$1" "$2" --json call everything.echo message=hi | jq -r '.content[0].text'`,
      "sh",
      new URL("../../deno.json", import.meta.url).pathname,
      new URL("../../main.ts", import.meta.url).pathname,
    ],
    cwd: join(box.root, "work"),
    env: box.env,
    clearEnv: true,
    stdout: "piped",
  }).output();
  assert.equal(new TextDecoder().decode(piped.stdout), "Echo: hi\n");

  const echo = await box.json<Envelope>(["call", "everything.echo", "message=x"]);
  assert.deepEqual(echo.content, [{ type: "text", text: "Echo: x" }]);
  assert.equal(echo.isError, undefined);
  assert.equal(echo.mcpx.server, "everything");
  assert.equal(echo.mcpx.tool, "echo");
  assert.equal(echo.mcpx.instance.key, "global");
  assert.ok(echo.mcpx.instance.pid > 0);
  const structured = await box.json<Envelope>(["call", "fixture.structured"]);
  assert.deepEqual(structured.structuredContent, { a: 1 });
  // Plain call keeps the unwrapped value.
  assert.equal((await box.mcpx(["call", "fixture.structured"])).stdout, '{\n  "a": 1\n}\n');

  // A tool error is an envelope too, with isError, and exits 8.
  const failed = await box.mcpx(["--json", "call", "fixture.fail"]);
  assert.equal(failed.code, 8);
  const failure = JSON.parse(failed.stdout) as Envelope & { error: { code: string } };
  assert.equal(failure.isError, true);
  assert.deepEqual(failure.content, [{ type: "text", text: "it failed on purpose" }]);
  assert.equal(failure.error.code, "TOOL_ERROR");
  assert.equal(failed.stderr, "");

  // An error found before anything runs: JSON on stdout only, the exit status unchanged.
  const missing = await box.mcpx(["--json", "call", "everythin.echo"]);
  assert.equal(missing.code, 5);
  assert.equal(missing.stderr, "");
  assert.match((JSON.parse(missing.stdout) as { error: { code: string } }).error.code, /NOT_FOUND/);
  const badEnv = await box.mcpx(["--json", "exec", "1", "--env", "not a pair"]);
  assert.equal(badEnv.code, 2);
  assert.equal(badEnv.stderr, "");
  assert.match(JSON.parse(badEnv.stdout).error.message, /--env "not a pair" is not KEY=VALUE/);
  const usage = await box.mcpx(["--json", "call", "everything"]);
  assert.equal(usage.code, 2);
  assert.equal(usage.stderr, "");
  assert.equal(JSON.parse(usage.stdout).error.code, "USAGE");
});

Deno.test("call: MCPX_TRACE=1 on a caller traces that caller's calls against a daemon started without it", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { echo: echoArgsServer() } });
  assert.equal((await box.mcpx(["start"])).code, 0);
  const traces = async () =>
    (await daemonLog(box)).filter((r) => r.event === "call.trace").map((r) => String(r.msg));
  assert.equal((await box.mcpx(["call", "echo.echo_args", "s=plain"])).code, 0);
  assert.deepEqual(await traces(), [], "an untraced caller's call leaves no trace record");
  const cli = await box.mcpx(["call", "echo.echo_args", "s=traced"], { env: { MCPX_TRACE: "1" } });
  assert.equal(cli.code, 0, cli.stderr);
  assert.equal((await traces()).length, 1);
  assert.match((await traces())[0], /^echo\.echo_args served by echo#\d+/);
  // A script's calls take its command's setting.
  const run = await box.mcpx(["exec", 'await echo.echo_args({ s: "a" }); return "ok"'], {
    env: { MCPX_TRACE: "1" },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal((await traces()).length, 2);
  await box.mcpx(["exec", 'await echo.echo_args({ s: "b" }); return "ok"']);
  assert.equal((await traces()).length, 2, "nor does an untraced script's");
  await box.mcpx(["stop"]);
});
