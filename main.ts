import { main } from "./lib/surfaces/cli.ts";
import { realIo } from "./lib/io.ts";

if (import.meta.main) Deno.exit(await main(Deno.args, realIo()));
