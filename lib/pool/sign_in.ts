// A sign-in started from a call (docs/oauth.md): a call to a remote server that needs OAuth and
// has no usable token does not just fail. The daemon starts the sign-in itself (its loopback
// listener waiting for the redirect) and hands the person the URL to open as a URL-mode question;
// once it is answered and the redirect has come, the call is made again and its result is the
// question's outcome, which `mcpx elicit answer` prints.

import type { Broker } from "../questions/broker.ts";
import { McpxError, messageOf } from "../errors.ts";

/** One sign-in under way in the daemon. */
export interface SignIn {
  /** The URL to open; rejects when the sign-in fails before there is one. */
  url: Promise<string>;
  /** Settles when the redirect came and the tokens are stored (or the sign-in failed). */
  done: Promise<unknown>;
  /** Ends the sign-in (its listener) if it is still waiting. */
  cancel(): void;
}

/** Starts a sign-in to a server, or says it cannot take one (CI mode, a machine client). */
export type StartSignIn = (server: { name: string; namespace: string }) => SignIn | undefined;

const waiting = new Map<string, string>();

/** How long an answered sign-in question waits for the redirect before the call is made again. */
const SETTLE_MS = 10_000;

/**
 * Turns a call's CREDENTIALS_MISSING into a sign-in question: raises it and rejects with
 * INPUT_REQUIRED naming its ticket. The answer (`mcpx elicit answer`, no words once the browser is
 * done) waits for the redirect and then for `retry`, the call made again; declining ends it.
 * Rethrows `cause` where no sign-in can start.
 */
export async function signInQuestion(
  broker: Broker,
  start: StartSignIn,
  server: { name: string; namespace: string },
  tool: string,
  cause: McpxError,
  retry: () => Promise<{ result: unknown }>,
): Promise<never> {
  const pending = waiting.get(server.namespace);
  if (pending) {
    throw new McpxError(
      "CREDENTIALS_MISSING",
      `A sign-in to "${server.namespace}" is already waiting: question "${pending}"`,
      { hint: `mcpx elicit show ${pending}` },
    );
  }
  const signIn = start(server);
  if (!signIn) throw cause;
  let url: string;
  try {
    url = await signIn.url;
  } catch (e) {
    signIn.cancel();
    throw e;
  }
  const conn = {};
  const { watch, done } = broker.watch(conn, server.namespace, tool);
  const ended = new AbortController();
  const answered = broker.ask(conn, server.name, "elicitation/create", {
    mode: "url",
    message: `Sign in to "${server.namespace}" to continue`,
    url,
    elicitationId: crypto.randomUUID(),
  }, ended.signal) as Promise<{ action?: string }>;
  const ticket = watch.tickets[0];
  if (ticket === undefined) {
    // Refused (too many questions pending): no sign-in without a question to hand it over.
    signIn.cancel();
    done();
    throw cause;
  }
  waiting.set(server.namespace, ticket);
  // The outcome lands on the question's row; a daemon that is stopping has closed the table.
  const finish = (outcome: Parameters<Broker["finish"]>[1]) => {
    try {
      broker.finish(watch, outcome);
    } catch { /* the daemon is stopping */ }
  };
  // A sign-in that ends without its redirect (its wait ran out) cancels the question with it.
  signIn.done.catch(() => ended.abort());
  void (async () => {
    try {
      const reply = await answered;
      if (reply.action !== "accept") {
        signIn.cancel();
        finish({
          error: {
            code: "CREDENTIALS_MISSING",
            message: `The sign-in to "${server.namespace}" was not done (${reply.action})`,
          },
        });
        return;
      }
      // The person answers once the browser is done, so the redirect has come (or they signed
      // in with `mcpx auth login` instead): wait a little for it, then make the call again.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        signIn.done.catch(() => {}),
        new Promise((resolve) => timer = setTimeout(resolve, SETTLE_MS)),
      ]);
      clearTimeout(timer);
      signIn.cancel();
      const out = await retry();
      finish({ result: out.result });
    } catch (e) {
      finish({
        error: { code: e instanceof McpxError ? e.code : "INTERNAL", message: messageOf(e) },
      });
    } finally {
      waiting.delete(server.namespace);
      ended.abort();
      done();
    }
  })();
  const q = broker.show(ticket);
  throw new McpxError(
    "INPUT_REQUIRED",
    `${server.namespace}.${tool} needs a sign-in: open ${url} (question "${ticket}")`,
    {
      hint:
        `Once signed in, answer it with: ${q.command}  (or sign in with \`mcpx auth login ${server.namespace}\`)`,
      data: { ticket, command: q.command, question: q },
    },
  );
}
