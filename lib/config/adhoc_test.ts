import assert from "node:assert/strict";
import { adHocEntry, splitCommandLine, stdioNamespace } from "./adhoc.ts";

Deno.test("splitCommandLine() quotes like a shell and expands nothing", () => {
  assert.deepEqual(splitCommandLine(`npx -y 'a b' "c \\"d\\"" e\\ f`), [
    "npx",
    "-y",
    "a b",
    'c "d"',
    "e f",
  ]);
  assert.deepEqual(splitCommandLine("run '; rm -rf ~' $(id) `id`"), [
    "run",
    "; rm -rf ~",
    "$(id)",
    "`id`",
  ]);
  assert.deepEqual(splitCommandLine("x ''"), ["x", ""]);
  assert.throws(() => splitCommandLine("x 'open"), /unclosed '/);
  assert.throws(() => splitCommandLine("   "), /needs a command line/);
});

Deno.test("stdioNamespace() names the program, or the package a runner runs", () => {
  assert.equal(
    stdioNamespace(["npx", "-y", "@modelcontextprotocol/server-everything@1.2"]),
    "server_everything",
  );
  assert.equal(stdioNamespace(["uvx", "--from", "x", "mcp-server-git"]), "mcp_server_git");
  assert.equal(stdioNamespace(["node", "/a/my-server/dist/index.js"]), "my_server");
  assert.equal(stdioNamespace(["/usr/bin/gh-mcp", "--stdio"]), "gh_mcp");
  assert.equal(adHocEntry({ stdio: "x", name: "my name" }).name, "my_name");
  assert.deepEqual(adHocEntry({ url: "https://mcp.example.com/mcp" }), {
    name: "mcp",
    entry: { url: "https://mcp.example.com/mcp" },
  });
});
