import assert from "node:assert/strict";
import { join } from "node:path";
import { faultyServer } from "../fixtures/servers.ts";
import { npmServer, Sandbox } from "../_helpers.ts";

/** What the fixture's `big` tool returns for `bytes`: numbered 64-byte lines, the last cut. */
function bigText(bytes: number): string {
  const lines: string[] = [];
  for (let i = 1; i * 64 <= bytes + 63; i++) {
    const head = `line ${String(i).padStart(6, "0")} `;
    lines.push(head + "x".repeat(63 - head.length) + "\n");
  }
  return lines.join("").slice(0, bytes);
}

const LINE = /\n\[mcpx: output cut at (\d+) of (\d+) bytes; all ([\d.]+ KiB) are in (\S+)\]\n$/;
const DEFAULT_MAX = 102400;
const size = (text: string) => new TextEncoder().encode(text).length;

/** Checks a head, the line after it and the file it names; returns the file's path. */
async function spilled(box: Sandbox, stdout: string, whole: string): Promise<string> {
  const m = LINE.exec(stdout);
  assert.ok(m, `no spill line at the end of ${stdout.length} bytes: …${stdout.slice(-200)}`);
  const head = stdout.slice(0, m.index + 1);
  assert.equal(size(head), Number(m[1]), "the line says how much was shown");
  assert.ok(size(head) <= DEFAULT_MAX, "the head stays within output.maxBytes");
  assert.ok(whole.startsWith(head), "the head is the start of the whole");
  assert.ok(head.endsWith("\n"), "cut after a whole line");
  const path = m[4];
  assert.ok(path.startsWith(join(box.root, "state", "mcpx", "output") + "/"), path);
  assert.equal(await Deno.readTextFile(path), whole, "the file holds all of it");
  assert.equal(Number(m[2]), size(whole));
  assert.equal(m[3], `${(size(whole) / 1024).toFixed(1)} KiB`);
  assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
  return path;
}

Deno.test("output.maxBytes: a big call result prints its head and names the file holding it", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { fixture: faultyServer(["--output-tools"]) } });
  const whole = bigText(300_000) + "\n";

  const plain = await box.mcpx(["call", "fixture.big", "bytes=300000"]);
  assert.equal(plain.code, 0, plain.stderr);
  await spilled(box, plain.stdout, whole);

  // --json: the envelope cut to fit, still JSON, marked; the file holds the whole envelope.
  const json = await box.mcpx(["--json", "call", "fixture.big", "bytes=300000"]);
  assert.equal(json.code, 0, json.stderr);
  assert.ok(size(json.stdout) <= DEFAULT_MAX, `${size(json.stdout)} bytes printed`);
  const doc = JSON.parse(json.stdout) as {
    content: { text: string }[];
    mcpx: { instance: { pid: number } };
    truncated: boolean;
    spilledTo: string;
    bytes: number;
  };
  assert.equal(doc.truncated, true);
  assert.ok(doc.mcpx.instance.pid > 0, "who served it is kept whole");
  assert.ok(bigText(300_000).startsWith(doc.content[0].text));
  assert.ok(doc.content[0].text.length > DEFAULT_MAX / 2, "most of the room goes to the text");
  const file = await Deno.readTextFile(doc.spilledTo);
  assert.equal(size(file), doc.bytes);
  assert.equal(
    (JSON.parse(file) as { content: { text: string }[] }).content[0].text,
    bigText(300_000),
  );
  assert.equal((await Deno.stat(doc.spilledTo)).mode! & 0o777, 0o600);

  // Under the bound nothing changes; 0 turns the bound off.
  const small = await box.mcpx(["call", "fixture.big", "bytes=1000"]);
  assert.equal(small.stdout, bigText(1000) + "\n");
  const off = await box.mcpx(["call", "fixture.big", "bytes=300000"], {
    env: { MCPX_OUTPUT_MAX_BYTES: "0" },
  });
  assert.equal(off.stdout, whole);
  const flag = await box.mcpx(["call", "fixture.big", "bytes=300000", "--max-output", "1000"]);
  assert.match(flag.stdout, /\[mcpx: output cut at 960 of 300001 bytes;/);
});

Deno.test("output.maxBytes: a big file read through server-filesystem prints its text's head", async () => {
  await using box = await Sandbox.create();
  // 216 KB of text (numbered 64-byte lines), as the review read: its structured content is one
  // object holding one long string, beside the same text.
  const whole = bigText(216_000);
  const file = await box.write("files/big.txt", whole);
  await box.write("files/small.txt", "one\ntwo\n");
  await box.write("work/.mcpx.json", {
    mcpServers: {
      filesystem: {
        ...npmServer("server-filesystem", [join(box.root, "files")]),
        mcpx: { roots: [join(box.root, "files")] },
      },
    },
  });
  const plain = await box.mcpx(["call", "filesystem.read_text_file", `path=${file}`]);
  assert.equal(plain.code, 0, plain.stderr);
  const m = LINE.exec(plain.stdout);
  assert.ok(m, `no spill line: …${plain.stdout.slice(-200)}`);
  const head = plain.stdout.slice(0, m.index + 1);
  assert.ok(size(head) > DEFAULT_MAX / 2, `${size(head)} bytes of the text shown`);
  assert.ok(size(head) <= DEFAULT_MAX);
  assert.ok(whole.startsWith(head), "the head is the file's own text, not JSON");
  assert.equal(Number(m[1]), size(head));
  // The file holds the whole result as the --json-less form printed it: the text itself.
  assert.equal(await Deno.readTextFile(m[4]), whole);

  // A small one prints as the text it is, with no JSON escapes.
  const small = await box.mcpx([
    "call",
    "filesystem.read_text_file",
    `path=${join(box.root, "files", "small.txt")}`,
  ]);
  assert.equal(small.stdout, "one\ntwo\n", small.stderr);
  const listing = await box.mcpx(["call", "filesystem.list_directory", `path=${box.root}/files`]);
  assert.deepEqual(
    listing.stdout.split("\n").sort(),
    ["", "[FILE] big.txt", "[FILE] small.txt"],
    listing.stderr,
  );

  // --json keeps the envelope, cut to fit and marked.
  const json = await box.mcpx(["--json", "call", "filesystem.read_text_file", `path=${file}`]);
  assert.equal(json.code, 0, json.stderr);
  assert.ok(size(json.stdout) <= DEFAULT_MAX);
  const doc = JSON.parse(json.stdout) as { truncated: boolean; content: { text: string }[] };
  assert.equal(doc.truncated, true);
  assert.ok(whole.startsWith(doc.content[0].text));
});

Deno.test("output: binary content is never printed; each item's bytes are saved to a file", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { fixture: faultyServer(["--output-tools"]) } });
  const plain = await box.mcpx(["call", "fixture.binary"]);
  assert.equal(plain.code, 0, plain.stderr);
  const lines = plain.stdout.split("\n");
  assert.equal(lines[0], "three binary items follow");
  const image = /^\[image image\/png, 8 B; saved in (\S+\.png)\]$/.exec(lines[1]);
  const audio = /^\[audio audio\/wav, 4 B; saved in (\S+\.wav)\]$/.exec(lines[2]);
  const blob = /^\[resource application\/octet-stream, 3 B; saved in (\S+\.bin)\]$/.exec(lines[3]);
  assert.ok(image && audio && blob, plain.stdout);
  assert.deepEqual(
    await Deno.readFile(image[1]),
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  );
  assert.equal(await Deno.readTextFile(audio[1]), "RIFF");
  assert.equal(await Deno.readTextFile(blob[1]), "abc");

  for (const args of [["--json", "call", "fixture.binary"], ["call", "fixture.binary", "--raw"]]) {
    const out = await box.mcpx(args);
    assert.equal(out.code, 0, out.stderr);
    assert.ok(!out.stdout.includes(btoa("\x89PNG\r\n\x1a\n")), "no base64 bytes printed");
    const doc = JSON.parse(out.stdout) as {
      content: Record<string, unknown>[];
    };
    const [, img, , res] = doc.content;
    assert.equal(img.type, "image");
    assert.equal(img.mimeType, "image/png");
    assert.equal(img.bytes, 8);
    assert.equal(img.data, undefined);
    assert.equal((await Deno.readFile(img.file as string)).length, 8);
    const resource = res.resource as Record<string, unknown>;
    assert.equal(resource.uri, "file:///blob.bin");
    assert.equal(resource.blob, undefined);
    assert.equal(await Deno.readTextFile(resource.file as string), "abc");
  }
  // A script still receives the bytes themselves.
  const script = await box.mcpx([
    "exec",
    "const r = await fixture.binary({}); return r.raw.content[1].data",
  ]);
  assert.equal(script.stdout, btoa("\x89PNG\r\n\x1a\n") + "\n", script.stderr);
});

Deno.test("output.maxBytes: run and exec print a head; a script still gets whole results", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { fixture: faultyServer(["--output-tools"]) } });

  // A script that prints a small summary of a big result: nothing is cut, on either side.
  const summary = await box.mcpx([
    "exec",
    "const r = await fixture.big({ bytes: 300000 }); return `${r.length} ${r.endsWith('x')}`",
  ]);
  assert.equal(summary.stdout, "300000 true\n", summary.stderr);

  await box.write(
    "work/.mcpx/scripts/dump.ts",
    "export default async () => await fixture.big({ bytes: 300000 });\n",
  );
  const whole = bigText(300_000) + "\n";
  const run = await box.mcpx(["run", "dump"]);
  assert.equal(run.code, 0, run.stderr);
  const path = await spilled(box, run.stdout, whole);
  assert.match(path, /\/run-dump-[^/]+\.txt$/);
  const printed = await box.mcpx([
    "exec",
    "console.log(String(await fixture.big({ bytes: 300000 })))",
  ]);
  await spilled(box, printed.stdout, whole);

  // --json run: the document cut to fit and marked; the verdict kept; the file holds it whole.
  const json = await box.mcpx(["--json", "run", "dump"]);
  assert.equal(json.code, 0, json.stderr);
  assert.ok(size(json.stdout) <= DEFAULT_MAX, `${size(json.stdout)} bytes printed`);
  const doc = JSON.parse(json.stdout) as {
    ok: boolean;
    exitCode: number;
    result: string;
    truncated: boolean;
    spilledTo: string;
    bytes: number;
  };
  assert.deepEqual([doc.ok, doc.exitCode, doc.truncated], [true, 0, true]);
  assert.ok(bigText(300_000).startsWith(doc.result));
  const file = await Deno.readTextFile(doc.spilledTo);
  assert.equal(size(file), doc.bytes);
  assert.equal((JSON.parse(file) as { result: string }).result, bigText(300_000));

  // stderr is held to the same bound, in a file of its own (console.error is a log record).
  const noisy = await box.mcpx(["exec", 'console.error("e".repeat(200000)); return 1']);
  assert.equal(noisy.stdout, "1\n");
  const err =
    /\n\[mcpx: output cut at 102400 of (\d+) bytes; all [\d.]+ KiB are in (\S+-stderr-\S+\.txt)\]\n$/
      .exec(noisy.stderr);
  assert.ok(err, noisy.stderr.slice(-300));
  assert.match(noisy.stderr, /^\d\d:\d\d:\d\d\.\d{3} ERROR e+\n\[mcpx/);
  assert.equal(size(noisy.stderr.slice(0, err.index)), 102400, "a cut inside a line");
  const errFile = await Deno.readTextFile(err[2]);
  assert.ok(errFile.endsWith(" ERROR " + "e".repeat(200000) + "\n"));
  assert.equal(size(errFile), Number(err[1]));

  // 0 turns it off.
  const off = await box.mcpx(["run", "dump", "--max-output", "0"]);
  assert.equal(off.stdout, whole);
});
