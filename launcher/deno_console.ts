// Deno's own Console class, printing through a function. Erasable TypeScript.

import type { ConsoleFactory } from "./console.ts";

/**
 * Deno keeps its Console class on `Deno[Deno.internal]`; made with a print function, it formats
 * exactly as the global console does. Levels 0 and 1 are what Deno writes to stdout.
 */
export const denoConsole: ConsoleFactory = (print) => {
  // deno-lint-ignore no-explicit-any
  const D = (globalThis as any).Deno;
  const Console = D?.[D?.internal]?.Console;
  if (typeof Console !== "function") return undefined;
  return new Console((text: string, level: number) => print(text, level > 1));
};
