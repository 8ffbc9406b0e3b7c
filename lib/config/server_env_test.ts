import assert from "node:assert/strict";
import {
  callerVariables,
  passthroughNames,
  referencedVariables,
  serverEnvironment,
} from "./server_env.ts";

Deno.test("serverEnvironment() is the base, LC_*, the passed names and the server's own env, nothing else", () => {
  const daemon = {
    PATH: "/bin",
    HOME: "/h",
    TMPDIR: "/t",
    LANG: "C.UTF-8",
    LC_ALL: "C",
    LC_TIME: "en_GB",
    MCPX_SESSION_ID: "s",
    GITHUB_TOKEN: "secret",
    PASSED: "p",
  };
  assert.deepEqual(serverEnvironment(daemon, ["PASSED", "UNSET"], { OWN: "o", PATH: "/own" }), {
    PATH: "/own",
    HOME: "/h",
    TMPDIR: "/t",
    LANG: "C.UTF-8",
    LC_ALL: "C",
    LC_TIME: "en_GB",
    PASSED: "p",
    OWN: "o",
  });
});

Deno.test("passthroughNames() splits the setting on commas", () => {
  assert.deepEqual(passthroughNames(" A, B,,A "), ["A", "B"]);
  assert.deepEqual(passthroughNames(""), []);
});

Deno.test("referencedVariables() finds every ${VAR} of an entry but the escaped ones", () => {
  assert.deepEqual(
    referencedVariables({
      command: "x",
      args: ["--token=${T}", "$${LITERAL}"],
      env: { A: "${A_VAR}" },
      headers: { H: "Bearer ${H_VAR}" },
      auth: { type: "bearer", token: "${T}" },
      mcpx: { description: "${NOT_READ}" },
    }),
    ["A_VAR", "H_VAR", "T"],
  );
});

Deno.test("callerVariables() is the references of the envFrom caller servers, an alias's from its target", () => {
  assert.deepEqual(
    callerVariables({
      mine: { command: "x", env: { T: "${MINE}" }, mcpx: { envFrom: "caller" } },
      shared: { command: "y", env: { T: "${DAEMONS}" } },
      again: { aliasOf: "shared", mcpx: { envFrom: "caller" } },
    }),
    ["DAEMONS", "MINE"],
  );
});
