import assert from "node:assert/strict";
import {
  functionNames,
  isIdentifier,
  isReservedWord,
  RUNTIME_NAMES,
  toIdentifier,
  toNamespace,
} from "./names.ts";

const tools = (names: string[]) => names.map((name) => ({ name }));

Deno.test("isIdentifier() takes JavaScript's identifier names, any script", () => {
  for (const yes of ["a", "_", "$", "a_b", "ünïcode", "名前", "$x1", "delete", "__proto__"]) {
    assert.ok(isIdentifier(yes), yes);
  }
  for (const no of ["", "2fa", "a-b", "x.y", "a b", "é-e", "\u0301a"]) {
    assert.ok(!isIdentifier(no), no);
  }
});

Deno.test("toIdentifier() keeps an identifier as it is and maps only what is not one", () => {
  assert.equal(toIdentifier("ünïcode"), "ünïcode");
  assert.equal(toIdentifier("ok_name"), "ok_name");
  assert.equal(toIdentifier("chrome-devtools"), "chrome_devtools");
  assert.equal(toIdentifier("2fa"), "_2fa");
  assert.equal(toIdentifier("x.y"), "x_y");
  assert.equal(toIdentifier("é-e"), "é_e");
  assert.equal(toIdentifier("\u0301a"), "_\u0301a", "a mark may continue a name, not start it");
  assert.equal(toIdentifier("a😀b"), "a_b", "one character, one underscore");
  assert.equal(toIdentifier(""), "_");
  for (const name of ["2fa", "x.y", "é-e", "\u0301a", "a😀b", "", "-"]) {
    assert.ok(isIdentifier(toIdentifier(name)), name);
  }
});

Deno.test("functionNames() gives the names of issue 11's fixture, whatever their order", () => {
  const names = ["delete", "a-b", "a_b", "class", "2fa", "ünïcode", "x.y", "__proto__"];
  const want = new Map([
    ["2fa", "_2fa"],
    ["__proto__", "__proto___"],
    ["a-b", "a_b_2"],
    ["a_b", "a_b"],
    ["class", "class_"],
    ["delete", "delete_"],
    ["x.y", "x_y"],
    ["ünïcode", "ünïcode"],
  ]);
  assert.deepEqual(functionNames(tools(names)), want);
  assert.deepEqual(functionNames(tools([...names].reverse())), want);
  for (const fn of want.values()) assert.ok(isIdentifier(fn) && !isReservedWord(fn), fn);
});

Deno.test("functionNames() settles collisions by suffix, never taking a name a tool has", () => {
  assert.deepEqual(
    functionNames(tools(["fancy-name", "fancy_name", "fancy.name", "fancy_name_2"])),
    new Map([
      ["fancy-name", "fancy_name_3"],
      ["fancy.name", "fancy_name_4"],
      ["fancy_name", "fancy_name"],
      ["fancy_name_2", "fancy_name_2"],
    ]),
  );
  assert.deepEqual(
    functionNames(tools(["delete", "delete_", "2fa", "", "a b"])),
    new Map([
      ["", "_"],
      ["2fa", "_2fa"],
      ["a b", "a_b"],
      ["delete", "delete__2"],
      ["delete_", "delete_"],
    ]),
  );
});

Deno.test("toNamespace() keeps namespaces clear of reserved words and the scripts' own names", () => {
  assert.equal(toNamespace("new"), "new_");
  assert.equal(toNamespace("search"), "search_");
  assert.equal(toNamespace("post"), "post_");
  assert.equal(toNamespace("__proto__"), "__proto___");
  assert.equal(toNamespace("my-server"), "my_server");
  assert.equal(toNamespace("ünïcode"), "ünïcode");
});

Deno.test("RUNTIME_NAMES is every top-level name of the client runtime, so no namespace is one", () => {
  const text = Deno.readTextFileSync(new URL("./runtime/client.ts", import.meta.url));
  const declared = [
    ...text.matchAll(
      /^(?:export )?(?:async )?(?:const|let|function|class|type|interface) ([\p{L}\w$]+)/gmu,
    ),
  ].map((m) => m[1]).sort();
  assert.ok(declared.length > 20, "the pattern finds the declarations");
  assert.deepEqual(declared, [...RUNTIME_NAMES].sort());
  for (const name of declared) assert.equal(toNamespace(name), `${name}_`, name);
});
