#!/usr/bin/env node
// A Claude Code SessionStart hook: the session's identity goes into the environment of every Bash
// command of that session (through CLAUDE_ENV_FILE), so mcpx leases servers per Claude Code
// session and records which session each tool call came from. The agent never sees any of it
// (docs/harness.md).
//
// Install: add to .claude/settings.json (or ~/.claude/settings.json), with this file's path:
//   { "hooks": { "SessionStart": [ { "hooks": [
//     { "type": "command", "command": "node /path/to/mcpx/integrations/claude-code/mcpx-session.mjs" }
//   ] } ] } }

import { appendFileSync, readFileSync } from "node:fs";

/** A word for a POSIX shell: single-quoted, with each ' closed, escaped and reopened. */
const quote = (text) => `'${String(text).replaceAll("'", `'\\''`)}'`;

function main() {
  const file = process.env.CLAUDE_ENV_FILE;
  let input;
  try {
    input = JSON.parse(readFileSync(0, "utf8") || "{}");
  } catch {
    process.stderr.write("mcpx-session: the hook's input is not JSON; nothing exported\n");
    return 0; // a hook that fails must not stop the session
  }
  const session = typeof input.session_id === "string" ? input.session_id : "";
  if (!session) return 0;
  if (!file) {
    process.stderr.write(
      "mcpx-session: CLAUDE_ENV_FILE is not set (only SessionStart hooks get it)\n",
    );
    return 0;
  }
  const pairs = [["session", session], ["harness", "claude-code"]];
  const cwd = process.env.CLAUDE_PROJECT_DIR || input.cwd;
  if (typeof cwd === "string" && cwd) pairs.push(["worktree", cwd]);
  if (typeof input.source === "string" && input.source) pairs.push(["start", input.source]);
  appendFileSync(
    file,
    `export MCPX_SESSION_ID=${quote(session)}\nexport MCPX_TRACE_IDS=${
      quote(JSON.stringify(pairs))
    }\n`,
  );
  return 0;
}

process.exitCode = main();
