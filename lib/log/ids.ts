/**
 * A new id for a thing records happen inside: `<kind>-<16 hex digits>`. Kinds: `dmn` a daemon,
 * `ins` a server instance, `ses` a session, `run` a script run, `cal` a tool call (docs/logging.md).
 */
export function newId(kind: "dmn" | "ins" | "ses" | "run" | "cal"): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  let hex = "";
  for (const b of bytes) hex += b.toString(16).padStart(2, "0");
  return `${kind}-${hex}`;
}
