// Echo through server-everything and ask server-filesystem what it may read: two servers, one run.
//
// Usage: mcpx --config examples/mcpx.json run examples/scripts/hello.ts [message]
export default async (args: string[]) => {
  const echo = String(await everything.echo({ message: args[0] ?? "hello from a script" }));
  const allowed = await filesystem.list_allowed_directories();
  log.info("asked {count} servers", { count: 2 });
  return { echo, allowed };
};
