import assert from "node:assert/strict";
import { captureIo } from "../io.ts";
import { main } from "../surfaces/cli.ts";

Deno.test("mcpx tui, and mcpx --tui, off a terminal: a one-line usage error, exit 2", async () => {
  for (const args of [["tui"], ["--tui"]]) {
    const io = captureIo();
    assert.equal(await main(args, io), 2);
    assert.equal(io.stdout(), "");
    assert.match(io.stderr(), /^mcpx: mcpx tui needs a terminal on stdin and stdout\. Run it/);
    assert.equal(io.stderr().trim().split("\n").length, 1, io.stderr());
  }
});

Deno.test("bare mcpx prints help unless both stdin and stdout are terminals", async () => {
  for (const terminals of [{}, { isTerminal: true }, { stdinIsTerminal: true }]) {
    const io = { ...captureIo(), ...terminals };
    const out: string[] = [];
    io.out = (t) => void out.push(t);
    assert.equal(await main([], io), 0);
    assert.match(out.join(""), /^Usage: mcpx \[options\] <command>/m);
  }
});
