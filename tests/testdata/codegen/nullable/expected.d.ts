/** every way a server says null */
declare namespace nullable {
// Null in its many spellings
function maybe(args?: {
  anyOfNull?: number | null; // anyOf with null (pydantic Optional)
  enumNull?: "on" | "off" | null; multi?: string | number | boolean | null;
  objectOrNull?: { x?: number } | null; oneOfObject?: { id: string } | null; onlyNull?: null;
  openapi?: string | null; // OpenAPI 3.0 nullable
  typeArray?: string | null; // type: [string, null]
}): Promise<ToolResult>;
}
