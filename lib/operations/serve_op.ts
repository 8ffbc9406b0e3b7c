import { defineOperation } from "./define.ts";
import { McpxError } from "../errors.ts";

/** `mcpx serve`: mcpx itself as an MCP server, over stdio or loopback Streamable HTTP. */
export const mcpServe = defineOperation<
  {
    http?: string;
    expose?: string[];
    session?: string;
    token?: string;
    auth?: boolean;
    tools?: "core" | "all";
  },
  { served: string; exitCode?: number }
>({
  id: "mcp.serve",
  summary: "Serve mcpx as an MCP server (code mode) over stdio, or Streamable HTTP with --http",
  description:
    "With --http, every request must carry `Authorization: Bearer <token>` (--token, or one made up at start and printed on stderr with the address): a loopback port is open to every user of the machine. Code mode serves six tools written for an agent (mcpx_ls, mcpx_search, mcpx_types, mcpx_call, mcpx_exec, mcpx_refresh); --tools all serves every tool the operations table marks for MCP as mcpx_<command>, with readOnly and destructive annotations, and mcpx_batch. mcpx_call hands on the called tool's own result, isError included. Both protocol eras: initialize (2025-11-25 and earlier) and 2026-07-28 server/discover with _meta on every request. Each MCP connection is its own mcpx session, ended when the client goes away, unless --session names one for all of them (a named session rejoins it; it outlives the connections). The daemon serves the same at /mcp on its socket (the whole set at /mcp?tools=all), where a connection joins a session with the x-mcpx-session header on its initialize request.",
  params: [{
    name: "tools",
    type: "enum",
    values: ["core", "all"],
    doc:
      "Code mode's tools: core, the six an agent needs (the default), or all, every operation marked for MCP and mcpx_batch",
  }, {
    name: "http",
    type: "string",
    doc:
      "Serve Streamable HTTP at http://<host:port>/mcp instead of stdio (a loopback host; port 0 picks one)",
  }, {
    name: "token",
    type: "string",
    doc:
      "With --http: the bearer token every request must carry (MCPX_SERVE_TOKEN keeps it out of the process table; default: one made up at start and printed with the address)",
  }, {
    name: "auth",
    type: "boolean",
    on: true,
    doc:
      "With --http: serve without the bearer token (it is required by default), to every local user of this machine, for a test harness that cannot send one",
  }, {
    name: "expose",
    type: "list",
    doc:
      "Gateway mode: re-expose these servers' tools, prompts and resources verbatim (their own names for one namespace, <ns>__<name> for several) instead of code mode",
  }, {
    name: "session",
    type: "string",
    doc:
      "Serve every connection in this session (a named one from `mcpx session new` rejoins it) instead of one of its own each; a client going away does not end it",
  }],
  cli: {
    command: ["serve"],
    examples: [["mcpx serve", "mcpx as an MCP server on stdio, for another MCP client"], [
      "mcpx serve --http 127.0.0.1:0",
      "Streamable HTTP on a free port; prints the address and its token",
    ], [
      "mcpx serve --expose playwright",
      "Gateway mode: playwright's own tools, through mcpx's pools",
    ]],
  },
  http: { none: "It is the MCP surface itself; the daemon serves the same at /mcp" },
  mcp: { expose: false },
  where: "local",
  output: (z) => z.object({ served: z.string(), exitCode: z.number().optional() }),
  async run(input, ctx) {
    // Loopback only: a listener beyond this machine is the daemon's, behind its bearer token.
    if (input.http !== undefined && !/^(127\.0\.0\.1|localhost|\[::1\]):\d+$/.test(input.http)) {
      throw new McpxError(
        "USAGE",
        `--http takes a loopback host:port, e.g. 127.0.0.1:0, not "${input.http}"`,
        {
          hint:
            "To serve /mcp beyond this machine, run `mcpx daemon --listen <host:port>`: it asks for a bearer token",
        },
      );
    }
    const expose = input.expose?.flatMap((n) => n.split(",")).filter(Boolean);
    if (input.tools !== undefined && expose?.length) {
      throw new McpxError("USAGE", "--tools applies to code mode, not to --expose", {
        hint: "Gateway mode serves the exposed servers' own tools: leave --tools out",
      });
    }
    if (input.session !== undefined && expose?.length) {
      throw new McpxError("USAGE", "--session applies to code mode, not to --expose", {
        hint: "Gateway mode relays to the daemon's /mcp/<ns>: send x-mcpx-session there",
      });
    }
    // MCPX_SERVE_TOKEN rather than --token keeps it out of the process table, which every local
    // user can read.
    const given = input.token ?? (ctx.io.env.MCPX_SERVE_TOKEN || undefined);
    if (input.http === undefined && (input.token !== undefined || input.auth !== undefined)) {
      throw new McpxError("USAGE", "--token and --no-auth are for --http: stdio has no listener");
    }
    if (given !== undefined && input.auth === false) {
      throw new McpxError(
        "USAGE",
        "A token (--token or MCPX_SERVE_TOKEN) and --no-auth contradict each other: give one",
      );
    }
    if (given !== undefined && /\s/.test(given)) {
      throw new McpxError("USAGE", "--token must not hold spaces: a bearer token is one word");
    }
    if (given !== undefined && given.length < 16) {
      throw new McpxError("USAGE", "--token must be at least 16 characters", {
        hint: "Leave it out and one is made up and printed with the address",
      });
    }
    return await ctx.host.serveMcp(ctx, input.http, expose?.length ? expose : undefined, {
      session: input.session || undefined,
      tools: input.tools ?? "core",
      token: input.auth === false ? undefined : given ?? newToken(),
      // A token the caller chose is theirs: never echoed into a terminal's scrollback.
      tokenGiven: given !== undefined,
    }).catch((e) => {
      // A port in use, or an address not this machine's: the user's to change, in one line.
      if (e instanceof Deno.errors.AddrInUse || e instanceof Deno.errors.AddrNotAvailable) {
        throw new McpxError("USAGE", `Cannot serve MCP at ${input.http}: ${e.message}`, {
          hint: "Give --http a free port, or port 0 to have one picked",
        });
      }
      throw e;
    });
  },
  render: () => "",
});

/** 32 random bytes as hex: the bearer token of a `serve --http` that was given none. */
function newToken(): string {
  return [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}
