import assert from "node:assert/strict";
import { join } from "node:path";
import { checkAdapter } from "./declare.ts";
import { callAdapterTool } from "./serve.ts";

/** A real program that prints, complains and exits with the status it is given. */
async function exiting(dir: string): Promise<string> {
  const path = join(dir, "exits.sh");
  await Deno.writeTextFile(path, `#!/bin/sh\necho "out"\necho "err" >&2\nexit "$1"\n`);
  await Deno.chmod(path, 0o755);
  return path;
}

const codeParam = { code: { type: "integer", positional: 0, required: true } };

Deno.test("callAdapterTool() returns a non-zero exit as a plain result when no codes are declared", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const adapter = checkAdapter({
      name: "ex",
      command: await exiting(dir),
      tools: [{ name: "run", params: codeParam }],
    }, join(dir, "ex.json"));
    const r = await callAdapterTool(adapter, "run", { code: 3 });
    assert.equal(r.isError, undefined, JSON.stringify(r));
    assert.deepEqual(r.structuredContent, { exitCode: 3, stdout: "out\n", stderr: "err\n" });
    assert.deepEqual(r.content, [{ type: "text", text: "exit 3\nout\n\nerr\n" }]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("callAdapterTool() marks isError only for the exit codes the declaration names", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const adapter = checkAdapter({
      name: "ex",
      command: await exiting(dir),
      errorExitCodes: "nonzero",
      tools: [
        { name: "any", params: codeParam },
        // grep's way: 1 is "nothing matched", only 2 and up went wrong.
        { name: "grepish", params: codeParam, errorExitCodes: [2, 3] },
      ],
    }, join(dir, "ex.json"));
    const marked = async (tool: string, code: number) =>
      (await callAdapterTool(adapter, tool, { code })).isError === true;
    assert.deepEqual(
      [await marked("any", 0), await marked("any", 1), await marked("any", 42)],
      [false, true, true],
    );
    assert.deepEqual(
      [await marked("grepish", 0), await marked("grepish", 1), await marked("grepish", 2)],
      [false, false, true],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("checkAdapter() refuses an errorExitCodes that is not a list of statuses or nonzero", () => {
  for (const bad of [[], ["1"], [256], [-1], 1, "all"]) {
    assert.throws(
      () =>
        checkAdapter(
          { name: "ex", command: "true", tools: [{ name: "t", errorExitCodes: bad }] },
          "/x/ex.json",
        ),
      /Adapter "ex" in \/x\/ex.json, tool "t": "errorExitCodes" must be "nonzero" or a non-empty array of exit statuses 0\.\.255/,
      JSON.stringify(bad),
    );
  }
});
