import assert from "node:assert/strict";
import { addToConfig, bundleOf, lineDiff, shortName, translate } from "./registry.ts";

Deno.test("the reverse-DNS name is cut to its last part, as a namespace", () => {
  assert.equal(shortName("io.github.microsoft/playwright-mcp"), "playwright_mcp");
  assert.equal(shortName("plain"), "plain");
});

Deno.test("runtime arguments go before the package, a repeated -y is not doubled", () => {
  const t = translate({
    name: "x/y",
    packages: [{
      registryType: "npm",
      identifier: "pkg",
      version: "1.0.0",
      runtimeArguments: [{ type: "positional", value: "-y" }, {
        type: "named",
        name: "--registry",
        value: "{url}",
        variables: { url: { default: "https://npm.example" } },
      }],
    }],
  });
  assert.deepEqual(t.entry, {
    command: "npx",
    args: ["-y", "--registry", "https://npm.example", "pkg@1.0.0"],
  });
  assert.deepEqual(t.required, []);
});

Deno.test("a secret's default is never used; podman as a runtime hint runs the image", () => {
  const t = translate({
    name: "x/img",
    packages: [{
      registryType: "oci",
      identifier: "ghcr.io/x/img:2",
      version: "2",
      runtimeHint: "podman",
      environmentVariables: [{ name: "KEY", isSecret: true, default: "not-a-real-key" }],
    }],
  });
  assert.deepEqual(t.entry, { command: "podman", args: ["run", "--rm", "-i", "ghcr.io/x/img:2"] });
  assert.deepEqual(t.required, []);
});

Deno.test("an entry with nothing runnable is refused", () => {
  assert.throws(
    () =>
      translate({
        name: "x/b",
        packages: [{ registryType: "nuget", identifier: "B" }],
      }),
    /no remote and no npm, pypi or oci stdio package \(packages: nuget\)/,
  );
  // A bundle is not run by a runner: bundleOf() hands it to lib/registry/mcpb.ts instead.
  const bundle = { registryType: "mcpb", identifier: "https://x/b.mcpb" };
  assert.deepEqual(bundleOf({ name: "x/b", packages: [bundle] }), bundle);
  assert.equal(
    bundleOf({ name: "x/b", packages: [bundle, { registryType: "npm", identifier: "b" }] }),
    undefined,
    "a package a runner runs wins",
  );
});

Deno.test("adding to a configuration keeps its comments and tab indentation", async () => {
  const text = '{\n\t// mine\n\t"mcpServers": {}\n}\n';
  const after = await addToConfig("c.json", text, "a", { command: "npx", args: ["-y", "a@1"] });
  assert.ok(after.includes("// mine"));
  assert.match(after, /\n\t\t"a": \{/);
  assert.deepEqual(JSON.parse(after.replace("// mine", "")).mcpServers.a, {
    command: "npx",
    args: ["-y", "a@1"],
  });
  const empty = await addToConfig("c.json", "", "a", { url: "https://x" });
  assert.deepEqual(JSON.parse(empty), { mcpServers: { a: { url: "https://x" } } });
  assert.match(lineDiff(text, after), /^@@ line 3 @@\n-\t"mcpServers": \{\}\n\+/);
});
