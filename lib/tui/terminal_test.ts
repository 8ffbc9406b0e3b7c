import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import type { MouseEvent } from "./app.ts";
import { openTerminal } from "./terminal.ts";

function streams() {
  const stdin = Object.assign(new PassThrough(), {
    modes: [] as boolean[],
    setRawMode(on: boolean) {
      stdin.modes.push(on);
      return stdin;
    },
  });
  const written: string[] = [];
  const stdout = Object.assign(new PassThrough(), {
    write: (text: string) => {
      written.push(text);
      return true;
    },
  });
  return { stdin, stdout, written };
}

function readAll(stream: NodeJS.ReadableStream): string {
  let text = "";
  let chunk: unknown;
  while ((chunk = stream.read()) !== null) text += String(chunk);
  return text;
}

const tick = () => new Promise((r) => setTimeout(r, 0));

Deno.test("openTerminal() turns cell-motion mouse reports on, takes them out of the keys, and back off", async () => {
  const s = streams();
  const term = openTerminal({ stdin: s.stdin as never, stdout: s.stdout as never });
  try {
    assert.equal(s.written[0], "\x1b[?1002h\x1b[?1006h");
    const events: MouseEvent[] = [];
    term.mouse((e) => events.push(e));
    // A click split across two reads, a wheel turn, and keys around them.
    s.stdin.write("j\x1b[<0;12");
    s.stdin.write(";5Mk\x1b[<0;12;5m\x1b[<65;3;4M/q");
    await tick();
    assert.deepEqual(events, [
      { button: 0, x: 12, y: 5, release: false },
      { button: 0, x: 12, y: 5, release: true },
      { button: 65, x: 3, y: 4, release: false },
    ]);
    assert.equal(readAll(term.stdin), "jk/q");
    // A lone escape is a key, not the start of a report.
    s.stdin.write("\x1b");
    await tick();
    assert.equal(readAll(term.stdin), "\x1b");
  } finally {
    term.restore();
  }
  assert.equal(s.written.at(-1), "\x1b[?1006l\x1b[?1002l");
  assert.deepEqual(s.stdin.modes, [false]);
  term.restore();
  assert.equal(s.written.filter((w) => w.includes("1002l")).length, 1);
});

Deno.test("openTerminal() says when stdin ends, so the browser quits rather than hangs", async () => {
  const s = streams();
  const term = openTerminal({ stdin: s.stdin as never, stdout: s.stdout as never });
  try {
    let ended = 0;
    term.onEnd(() => ended++);
    s.stdin.end();
    s.stdin.resume();
    for (let i = 0; i < 20 && ended === 0; i++) await tick();
    assert.equal(ended, 1);
  } finally {
    term.restore();
  }
});
