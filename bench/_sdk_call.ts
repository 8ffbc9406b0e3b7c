/**
 * The baseline of bench/package.ts's cold call: one tool call made by a bare script on the SDK's
 * client, with nothing of mcpx. Spawns the stdio server given as JSON (`{command, args}`),
 * initializes, calls `echo`, prints its text and exits.
 *
 *     deno run -A bench/_sdk_call.ts '{"command":"…","args":[…]}'
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const server = JSON.parse(Deno.args[0]) as { command: string; args: string[] };
const client = new Client({ name: "bench-sdk-call", version: "1" });
await client.connect(new StdioClientTransport({ ...server, stderr: "ignore" }));
const result = await client.callTool({ name: "echo", arguments: { text: "x" } });
console.log(JSON.stringify(result.content));
await client.close();
