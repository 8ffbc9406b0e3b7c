/**
 * Code mode's prompts and resources: every configured server's, through the `prompts` and
 * `resources` operations (so under this session's leases), namespaced, paged with mcpx's cursor.
 * Completion of a prompt's argument or a template's variable is the server's own (the
 * `completions` operation, relayed); the `{ns}` of an `mcpx://{ns}/…` template is completed from
 * what mcpx holds, the namespaces.
 */
import { ProtocolError, ProtocolErrorCode, type Server } from "@modelcontextprotocol/server";
import type { Operation } from "../../operations/define.ts";
import { McpxError, messageOf } from "../../errors.ts";
import { completionsGet, promptsGet, resourcesRead } from "../../operations/feature_ops.ts";
import { type McpHost, pageOf } from "./tools.ts";

/** The scheme of a resource of a configured server as code mode serves it: `mcpx://<ns>/<uri>`. */
export const RESOURCE_SCHEME = "mcpx://";

/** A feature request's context, as far as code mode reads it. */
type Ctx = { mcpReq: { signal: AbortSignal } };

/** Runs a feature's operation for the session; its failure is a protocol error. */
type Run = (
  op: Operation,
  input: Record<string, unknown>,
  ctx: Ctx,
) => Promise<Record<string, unknown>>;

/** An item as the operations list it: the namespace it is of, beside its own fields. */
type Listed = { namespace: string; [k: string]: unknown };

/** A prompt's or a template's argument being completed, and the request's other arguments. */
type Ref = { type: string; name?: string; uri?: string };
type Argument = { name: string; value: string };
type CompletionContext = { arguments?: Record<string, unknown> } | undefined;

/**
 * Serves code mode's prompts, resources and completion on `server` for one mcpx session, each
 * request run by `host` under the session.
 */
export function serveCodeModeFeatures(server: Server, host: McpHost, session: string): void {
  const run = runner(host, session);
  server.setRequestHandler(
    "prompts/list",
    (r, ctx) => listPrompts(run, r.params?.cursor, ctx) as never,
  );
  server.setRequestHandler(
    "prompts/get",
    (r, ctx) => getPrompt(run, r.params.name, r.params.arguments ?? {}, ctx) as never,
  );
  server.setRequestHandler(
    "resources/list",
    (r, ctx) => listResources(run, "resources", r.params?.cursor, ctx) as never,
  );
  server.setRequestHandler(
    "resources/templates/list",
    (r, ctx) => listResources(run, "resourceTemplates", r.params?.cursor, ctx) as never,
  );
  server.setRequestHandler(
    "resources/read",
    (r, ctx) => readResource(run, r.params.uri, ctx) as never,
  );
  server.setRequestHandler("completion/complete", (r, ctx) =>
    complete(
      run,
      r.params.ref as Ref,
      r.params.argument as Argument,
      r.params.context as CompletionContext,
      ctx,
    ) as never);
}

/** The protocol error for a failed feature request (a server's own JSON-RPC code kept). */
function featureError(error: unknown): ProtocolError {
  if (error instanceof ProtocolError) return error;
  const e = error instanceof McpxError ? error : undefined;
  const rpc = e?.data as { rpcCode?: number; rpcData?: unknown } | undefined;
  if (typeof rpc?.rpcCode === "number") {
    return new ProtocolError(rpc.rpcCode, e!.message, rpc.rpcData);
  }
  const code = e?.code === "SERVER_NOT_FOUND" || e?.code === "USAGE"
    ? ProtocolErrorCode.InvalidParams
    : ProtocolErrorCode.InternalError;
  return new ProtocolError(code, e ? e.message : messageOf(error));
}

/** How the session's feature operations run: by `host`, their failures protocol errors. */
function runner(host: McpHost, session: string): Run {
  return async (op, input, ctx) => {
    try {
      return await host.run(op, input, { session, signal: ctx.mcpReq.signal }) as Record<
        string,
        unknown
      >;
    } catch (error) {
      throw featureError(error);
    }
  };
}

const strip = ({ namespace: _ns, ...rest }: Listed) => rest;

/** `mcpx://<ns>/<uri>` as its namespace and the server's own URI; undefined for any other. */
function splitUri(uri: string) {
  if (!uri.startsWith(RESOURCE_SCHEME)) return undefined;
  const rest = uri.slice(RESOURCE_SCHEME.length);
  const slash = rest.indexOf("/");
  return slash > 0 ? { ns: rest.slice(0, slash), uri: rest.slice(slash + 1) } : undefined;
}

/** Every configured server's prompts, named `<namespace>.<name>`. */
async function listPrompts(run: Run, cursor: string | undefined, ctx: Ctx) {
  const listed =
    ((await run(promptsGet as unknown as Operation, {}, ctx)).prompts ?? []) as Listed[];
  const all = listed.map((p) => ({
    ...strip(p),
    name: `${p.namespace}.${p.name}`,
  }));
  return pageOf("prompts", all, cursor);
}

/** One prompt, `<namespace>.<name>`, got from its server with `args`. */
async function getPrompt(run: Run, name: string, args: Record<string, unknown>, ctx: Ctx) {
  const dot = name.indexOf(".");
  if (dot <= 0) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Unknown prompt "${name}": prompts are <namespace>.<name>`,
    );
  }
  const got = await run(promptsGet as unknown as Operation, {
    server: name.slice(0, dot),
    name: name.slice(dot + 1),
    arguments: args,
  }, ctx);
  return {
    ...(typeof got.description === "string" ? { description: got.description } : {}),
    messages: got.messages ?? [],
  };
}

/** Every configured server's resources, or resource templates, under `mcpx://<ns>/`. */
async function listResources(
  run: Run,
  kind: "resources" | "resourceTemplates",
  cursor: string | undefined,
  ctx: Ctx,
) {
  const out = await run(resourcesRead as unknown as Operation, {}, ctx);
  const all = kind === "resources"
    ? ((out.resources ?? []) as Listed[]).map((r) => ({
      ...strip(r),
      uri: `${RESOURCE_SCHEME}${r.namespace}/${r.uri}`,
    }))
    : ((out.templates ?? []) as Listed[]).map((t) => ({
      ...strip(t),
      uriTemplate: `${RESOURCE_SCHEME}${t.namespace}/${t.uriTemplate}`,
    }));
  return pageOf(kind, all, cursor);
}

/** One resource, `mcpx://<ns>/<uri>`, read from its server; its contents' URIs as mcpx's. */
async function readResource(run: Run, uri: string, ctx: Ctx) {
  const at = splitUri(uri);
  if (!at) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Resource not found", { uri });
  }
  const got = await run(resourcesRead as unknown as Operation, {
    server: at.ns,
    uri: at.uri,
    raw: true,
  }, ctx);
  const contents = (got.contents ?? []) as { uri?: string }[];
  return {
    contents: contents.map((c) => ({
      ...c,
      uri: `${RESOURCE_SCHEME}${at.ns}/${c.uri ?? at.uri}`,
    })),
  };
}

/** The values for an argument of a prompt or a resource template. */
async function complete(
  run: Run,
  ref: Ref,
  argument: Argument,
  context: CompletionContext,
  ctx: Ctx,
) {
  const value = String(argument?.value ?? "");
  let values: string[] = [];
  const relayed = (input: Record<string, unknown>) =>
    relayCompletion(run, input, argument, value, context, ctx);
  // A prompt not named <namespace>.<name> is none of a fronted server's: no values are known
  // for it (an empty answer, as the spec allows, rather than an error).
  const dot = ref.type === "ref/prompt" && ref.name ? ref.name.indexOf(".") : -1;
  if (ref.type === "ref/prompt" && ref.name && dot > 0) {
    return await relayed({ server: ref.name.slice(0, dot), prompt: ref.name.slice(dot + 1) });
  }
  if (ref.type === "ref/resource" && ref.uri?.startsWith(`${RESOURCE_SCHEME}{ns}/`)) {
    if (argument?.name === "ns") values = await namespaces(run, ctx);
  } else if (ref.type === "ref/resource" && ref.uri) {
    const at = splitUri(ref.uri);
    if (at) return await relayed({ server: at.ns, uri: at.uri });
  }
  const matching = values.filter((v) => v.startsWith(value)).slice(0, 100);
  return { completion: { values: matching, total: matching.length, hasMore: false } };
}

/** A completion answered by the server behind the prompt or resource (`input`). */
async function relayCompletion(
  run: Run,
  input: Record<string, unknown>,
  argument: Argument,
  value: string,
  context: CompletionContext,
  ctx: Ctx,
) {
  const got = await run(completionsGet as unknown as Operation, {
    ...input,
    argument: argument.name,
    value,
    ...(context?.arguments ? { context: context.arguments } : {}),
  }, ctx);
  const { values, total, hasMore } = got as {
    values: string[];
    total?: number;
    hasMore?: boolean;
  };
  return {
    completion: {
      values: values.slice(0, 100),
      ...(total !== undefined ? { total } : {}),
      ...(hasMore !== undefined ? { hasMore } : {}),
    },
  };
}

/** The namespaces that have resources or templates: the values of `mcpx://{ns}/…`'s `ns`. */
async function namespaces(run: Run, ctx: Ctx): Promise<string[]> {
  const out = await run(resourcesRead as unknown as Operation, {}, ctx);
  const all = [...(out.resources ?? []) as Listed[], ...(out.templates ?? []) as Listed[]];
  return [...new Set(all.map((r) => r.namespace))];
}
