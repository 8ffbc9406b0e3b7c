// An opencode plugin: every shell command opencode runs carries the identity of the session that
// runs it, so mcpx leases servers per opencode session (a subagent's under its parent's) and
// records which session, call and worktree each tool call came from. The agent never sees any of
// it (docs/harness.md).
//
// Install: copy this file to .opencode/plugins/ (one project) or ~/.config/opencode/plugins/.

/** The part of opencode's plugin context this plugin reads. */
interface Context {
  client?: {
    session?: {
      get?: (options: { path: { id: string } }) => Promise<{ data?: { parentID?: string } }>;
    };
  };
  directory?: string;
  worktree?: string;
}

/** opencode's `shell.env` hook: variables for one shell command. */
type ShellEnv = (
  input: { cwd: string; sessionID?: string; callID?: string },
  output: { env: Record<string, string> },
) => Promise<void>;

export const McpxSession = (ctx: Context): Promise<{ "shell.env": ShellEnv }> => {
  // A session's parent never changes: asked once per session.
  const parents = new Map<string, Promise<string | undefined>>();
  const parentOf = (id: string): Promise<string | undefined> => {
    let known = parents.get(id);
    if (!known) {
      known = (async () => {
        try {
          return (await ctx.client?.session?.get?.({ path: { id } }))?.data?.parentID || undefined;
        } catch {
          return undefined; // an id the server cannot look up still names the session
        }
      })();
      parents.set(id, known);
    }
    return known;
  };

  return Promise.resolve({
    "shell.env": async (input, output) => {
      if (!input.sessionID) return;
      const parent = await parentOf(input.sessionID);
      const pairs: string[][] = [["session", input.sessionID], ["harness", "opencode"]];
      if (parent) pairs.push(["parent", parent]);
      const worktree = ctx.worktree || ctx.directory;
      if (worktree) pairs.push(["worktree", worktree]);
      if (input.callID) pairs.push(["call", input.callID]);
      output.env.MCPX_SESSION_ID = input.sessionID;
      if (parent) output.env.MCPX_PARENT_SESSION_ID = parent;
      output.env.MCPX_TRACE_IDS = JSON.stringify(pairs);
    },
  });
};
