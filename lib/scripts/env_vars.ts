import { McpxError, messageOf } from "../errors.ts";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Parses one `--env KEY=VALUE`; the value may be empty and may contain `=`.
 * @throws {McpxError} USAGE when there is no `=` or the name is not a variable name.
 */
export function parseEnvPair(pair: string): [string, string] {
  const eq = pair.indexOf("=");
  const key = eq < 0 ? pair : pair.slice(0, eq);
  if (eq < 0 || !NAME.test(key)) {
    throw new McpxError(
      "USAGE",
      `--env "${pair}" is not KEY=VALUE${eq < 0 ? "" : `: "${key}" is not a variable name`}`,
      { hint: "Write --env NAME=value, once per variable" },
    );
  }
  return [key, pair.slice(eq + 1)];
}

function unquote(raw: string, where: string): string {
  const q = raw[0];
  if (q === "'" || q === '"') {
    const end = raw.indexOf(q, 1);
    if (end < 0) throw new Error(`${where}: the ${q} quote is never closed`);
    const rest = raw.slice(end + 1).trim();
    if (rest && !rest.startsWith("#")) throw new Error(`${where}: text after the closing quote`);
    const body = raw.slice(1, end);
    return q === "'"
      ? body
      : body.replace(/\\([nrt"\\])/g, (_, c: string) =>
        ({ n: "\n", r: "\r", t: "\t", '"': '"', "\\": "\\" })[c]!);
  }
  return raw.replace(/\s+#.*$/, "").trim();
}

/**
 * Parses a dotenv file: `KEY=VALUE` lines, optional `export `, `#` comments, blank lines,
 * values unquoted (trailing ` # comment` dropped), in '…' (literal) or "…" (\n \t \" \\).
 * @throws {McpxError} USAGE listing every malformed line with its number.
 */
export function parseEnvFile(text: string, path: string): Record<string, string> {
  const out: Record<string, string> = {};
  const problems: string[] = [];
  text.replace(/^\uFEFF/, "").split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const where = `${path}:${i + 1}`;
    const body = line.replace(/^export\s+/, "");
    const eq = body.indexOf("=");
    const key = eq < 0 ? body : body.slice(0, eq).trim();
    if (eq < 0 || !NAME.test(key)) {
      problems.push(`${where}: "${line}" is not KEY=VALUE`);
      return;
    }
    try {
      out[key] = unquote(body.slice(eq + 1).trim(), where);
    } catch (e) {
      problems.push(messageOf(e));
    }
  });
  if (problems.length > 0) {
    throw new McpxError("USAGE", `Cannot read --env-file: ${problems.join("; ")}`, {
      hint: "Each line is NAME=value; quote values with spaces or # in them",
    });
  }
  return out;
}
