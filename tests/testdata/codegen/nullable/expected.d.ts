/** every way a server says null */
declare namespace nullable {
/** Null in its many spellings */
function maybe(args?: {
  /** anyOf with null (pydantic Optional) */ anyOfNull?: number | null;
  enumNull?: "on" | "off" | null;
  multi?: string | number | boolean | null;
  objectOrNull?: { x?: number } | null;
  oneOfObject?: { id: string } | null;
  onlyNull?: null;
  /** OpenAPI 3.0 nullable */ openapi?: string | null;
  /** type: [string, null] */ typeArray?: string | null;
}): Promise<ToolResult>;
}
