/**
 * A lint plugin that measures, not lints: it reports every function of `tools/structure.ts`'s
 * threshold or longer (declarations, methods, and function or arrow expressions given a name by a
 * variable, property or class field), with its name and line count, so the figures come from
 * Deno's own parser rather than from counting braces. Loaded only by `tools/structure.ts`, with a
 * configuration of its own (never by `deno lint` of the project).
 */
const MIN = Number(Deno.env.get("MCPX_STRUCTURE_MIN_LINES") ?? "100");

// deno-lint-ignore no-explicit-any
type Node = any;

const nameOf = (node: Node): string | undefined => {
  if (node.id?.name) return node.id.name;
  const parent = node.parent;
  if (!parent) return undefined;
  if (parent.type === "VariableDeclarator") return parent.id?.name;
  if (
    parent.type === "MethodDefinition" || parent.type === "Property" ||
    parent.type === "PropertyDefinition"
  ) {
    const key = parent.key;
    return key?.name ?? key?.value ?? (key?.type === "PrivateIdentifier" ? `#${key.name}` : "?");
  }
  return undefined;
};

const plugin: Deno.lint.Plugin = {
  name: "structure",
  rules: {
    "function-size": {
      create(context) {
        const text = context.sourceCode.text;
        const starts = [0];
        for (let i = 0; i < text.length; i++) if (text[i] === "\n") starts.push(i + 1);
        const lineOf = (offset: number) => {
          let lo = 0, hi = starts.length - 1;
          while (lo < hi) {
            const mid = (lo + hi + 1) >> 1;
            if (starts[mid] <= offset) lo = mid;
            else hi = mid - 1;
          }
          return lo + 1;
        };
        const measure = (node: Node) => {
          const name = nameOf(node);
          if (!name) return;
          const lines = lineOf(node.range[1]) - lineOf(node.range[0]) + 1;
          if (lines >= MIN) context.report({ node, message: `${name} ${lines}` });
        };
        return {
          FunctionDeclaration: measure,
          FunctionExpression: measure,
          ArrowFunctionExpression: measure,
        };
      },
    },
  },
};
export default plugin;
