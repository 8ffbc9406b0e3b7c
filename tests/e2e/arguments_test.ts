import assert from "node:assert/strict";
import { echoArgsServer } from "../fixtures/servers.ts";
import { daemonLog, npmServer, Sandbox } from "../_helpers.ts";

/** What `mcpx --json call` prints, as far as these tests read it. */
interface Envelope {
  content: { type: string; text?: string }[];
}

/** The JSON text the fixture answered with, exactly as it wrote it. */
async function received(box: Sandbox, args: string[], stdin?: string): Promise<string> {
  const out = await box.json<Envelope>(["call", ...args], stdin === undefined ? {} : { stdin });
  return out.content[0].text!;
}

function oneLine(stderr: string): void {
  assert.equal(stderr.trimEnd().split("\n").length, 1, `one line: ${stderr}`);
}

Deno.test("call: key=value words reach the tool exactly as its schema types them", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { echo: echoArgsServer() } });

  // String properties get the text as typed, whatever it looks like as JSON.
  assert.equal(
    await received(box, [
      "echo.echo_args",
      "s=12345678901234567890",
      "constructor=1.50",
      "__proto__=-0",
    ]),
    '{"s":"12345678901234567890","constructor":"1.50","__proto__":"-0"}',
  );
  assert.equal(
    await received(box, ["echo.echo_args", 's="quoted"', "constructor=null", "__proto__=true"]),
    '{"s":"\\"quoted\\"","constructor":"null","__proto__":"true"}',
  );
  // The other types read as JSON of that type.
  assert.equal(
    await received(box, [
      "echo.echo_args",
      "n=1.50",
      "i=-3",
      "b=false",
      "z=null",
      'o={"k":[1]}',
      'a=[1,"2"]',
      "sn=null",
    ]),
    '{"n":1.5,"i":-3,"b":false,"z":null,"o":{"k":[1]},"a":[1,"2"],"sn":null}',
  );
  // Where the schema takes keys it does not name, those stay JSON-or-text.
  assert.equal(
    await received(box, ["echo.echo_open", "s=1", "extra=007", "more=12"]),
    '{"s":"1","extra":"007","more":12}',
  );

  // A value that is not of its property's type: one line naming it, exit 2.
  for (
    const [word, expected] of [
      ["n=abc", '"n" takes a number, not "abc"'],
      ["i=1.5", '"i" takes an integer, not "1.5"'],
      ["b=yes", '"b" takes a boolean, not "yes"'],
      ["o=[1]", '"o" takes an object, not "[1]"'],
      ["a=x", '"a" takes an array, not "x"'],
    ]
  ) {
    const bad = await box.mcpx(["call", "echo.echo_args", word]);
    assert.equal(bad.code, 2, bad.stderr);
    assert.ok(bad.stderr.includes(`Invalid arguments for echo.echo_args: ${expected}`), bad.stderr);
    oneLine(bad.stderr);
  }

  // JSON arguments named constructor and __proto__ reach the tool too, by call and by script.
  assert.equal(
    await received(box, ["echo.echo_args", '{"constructor":"c","__proto__":"p","s":"x"}']),
    '{"constructor":"c","__proto__":"p","s":"x"}',
  );
  const script = await box.mcpx([
    "exec",
    'const r = await echo.echo_args({ constructor: "c", ["__proto__"]: "p" }); return JSON.stringify(r)',
  ]);
  assert.equal(script.code, 0, script.stderr);
  assert.equal(script.stdout.trim(), '{"constructor":"c","__proto__":"p"}');
});

Deno.test("call: a key the schema does not declare is refused, naming the nearest declared one", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    mcpServers: { everything: npmServer("server-everything"), echo: echoArgsServer() },
  });
  // As the review typed them against server-everything: a misspelt key, and one it has not.
  const msg = await box.mcpx(["call", "everything.echo", "msg=x"]);
  assert.equal(msg.code, 2, msg.stderr);
  assert.match(
    msg.stderr,
    /Invalid arguments for everything\.echo: unknown field "msg": did you mean "message"\?/,
  );
  oneLine(msg.stderr);
  const extra = await box.mcpx(["call", "everything.get_sum", "a=2", "b=3", "c=4"]);
  assert.equal(extra.code, 2, extra.stderr);
  assert.match(extra.stderr, /everything\.get[-_]sum: unknown field "c"/);
  assert.match(extra.stderr, /Its fields: a, b/);
  oneLine(extra.stderr);
  const json = await box.mcpx(["--json", "call", "everything.get_sum", '{"a":2,"b":3,"c":4}']);
  assert.equal(json.code, 2);
  assert.equal(JSON.parse(json.stdout).error.code, "INVALID_ARGUMENTS");
  // A script's call is checked the same way.
  const script = await box.mcpx(["exec", "await everything.echo({ mesage: 'x' })"]);
  assert.notEqual(script.code, 0);
  assert.match(script.stderr, /unknown field "mesage": did you mean "message"\?/);
  // The right keys still work, and a schema that takes keys it does not name takes them.
  const ok = await box.mcpx(["call", "everything.get_sum", "a=2", "b=3"]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(await received(box, ["echo.echo_open", "zz=1"]), '{"zz":1}');
  const strict = await box.mcpx(["call", "echo.echo_args", "extra=007"]);
  assert.equal(strict.code, 2);
  assert.match(strict.stderr, /unknown field "extra"/);
});

Deno.test("call - and @file take JSON arguments past the command line's limit; exec - and @file take the program", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", { mcpServers: { echo: echoArgsServer() } });
  const big = "a".repeat(10 * 1024 * 1024 - 2) + "yz";
  const args = JSON.stringify({ text: big });
  const expected = { length: big.length, head: "aaaaaaaa", tail: "aaaaaayz" };

  // 10 MB through stdin, and through a file (a relative path, from the working directory).
  assert.deepEqual(JSON.parse(await received(box, ["echo.length", "-"], args)), expected);
  await box.write("work/in/args.json", args);
  assert.deepEqual(JSON.parse(await received(box, ["echo.length", "@in/args.json"])), expected);

  // A 10 MB program on stdin, and a program in a file.
  const program = `const t = ${
    JSON.stringify(big)
  };\nreturn (await echo.length({ text: t })).length;`;
  const viaStdin = await box.mcpx(["exec", "-"], { stdin: program });
  assert.equal(viaStdin.code, 0, viaStdin.stderr);
  assert.equal(viaStdin.stdout.trim(), String(big.length));
  await box.write("work/prog.ts", 'return (await echo.length({ text: "four" })).length');
  const viaFile = await box.mcpx(["exec", "@prog.ts"]);
  assert.equal(viaFile.code, 0, viaFile.stderr);
  assert.equal(viaFile.stdout.trim(), "4");

  // What goes wrong is said in one line, with the exit status of bad input.
  const cases: [string[], string | undefined, RegExp][] = [
    [
      ["call", "echo.length", "@missing.json"],
      undefined,
      /arguments file "missing\.json": no such file/,
    ],
    [["call", "echo.length", "-"], '{"text": "a",\n\n', /arguments on stdin are not valid JSON/],
    [["call", "echo.length", "-"], "[1, 2]", /arguments on stdin must be one JSON object/],
    [["call", "echo.length", "@in"], undefined, /arguments file "in": it is a directory/],
    [["exec", "@missing.ts"], undefined, /program file "missing\.ts": no such file/],
  ];
  for (const [argv, stdin, pattern] of cases) {
    const r = await box.mcpx(argv, stdin === undefined ? {} : { stdin });
    assert.equal(r.code, 2, `${argv.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, pattern);
    oneLine(r.stderr);
  }
});

Deno.test("call: a reply over daemon.maxMessageBytes fails its call at once, naming the limit, and is logged", async () => {
  await using box = await Sandbox.create();
  await box.write("work/.mcpx.json", {
    "daemon.maxMessageBytes": 1048576,
    mcpServers: { echo: { ...echoArgsServer(), mcpx: { callTimeout: "60s" } } },
  });
  for (const idLast of [false, true]) {
    const r = await box.mcpx(["call", "echo.huge", "bytes=3000000", `idLast=${idLast}`]);
    assert.equal(r.code, 6, r.stderr);
    assert.match(
      r.stderr,
      /replied during the call to "huge" with a message over the 1048576-byte limit \(daemon\.maxMessageBytes\); the reply was dropped/,
    );
    assert.doesNotMatch(r.stderr, /did not answer within/);
    oneLine(r.stderr);
  }
  // In a script, the call throws a ToolError saying the same.
  const script = await box.mcpx([
    "exec",
    "try { await echo.huge({ bytes: 3000000 }); return 'no error' } catch (e) { return `${e.code}: ${e.message}` }",
  ]);
  assert.equal(script.code, 0, script.stderr);
  assert.match(script.stdout, /^MESSAGE_TOO_LARGE: .*over the 1048576-byte limit/);
  // The server is still there, and answers what fits.
  assert.deepEqual(JSON.parse(await received(box, ["echo.length", "text=ok"])), {
    length: 2,
    head: "ok",
    tail: "ok",
  });
  const records = (await daemonLog(box)).filter((r) => r.event === "server.message_too_large");
  assert.equal(records.length, 3, JSON.stringify(records));
  assert.ok(records.every((r) => r.limit === 1048576 && (r.bytes as number) > 3000000));
});
