/** additionalProperties and patternProperties */
declare namespace additional {
// Records and open objects
function maps(args?: {
  bare?: { [key: string]: unknown }; closed?: { a?: string };
  headers?: { [key: string]: string }; // A string map
  mixed?: { name?: string; [key: string]: number | string | undefined };
  mixedComplex?: { meta?: { a?: string; b?: string; c?: string }; [key: string]: unknown };
  nestedMap?: { [key: string]: { [key: string]: number[] } }; nothing?: Record<string, never>;
  open?: { [key: string]: unknown }; patterns?: { [key: string]: string | number };
  requiredOnly?: { must: string; [key: string]: string };
}): Promise<ToolResult>;
}
