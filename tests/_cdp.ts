/**
 * Headless Chromium driven over the DevTools protocol (CDP) directly: a WebSocket to the browser,
 * one flat session per page. For the web page's test (tests/e2e/ui_test.ts), its benchmark
 * (bench/ui.ts) and its screenshots. Chromium runs with its own profile and HOME in a temporary
 * folder and none of a sandbox's environment; as root it needs --no-sandbox, and on these machines
 * the flags docs of ../shared/DESIGN.md name (no background networking, updates, sync, QUIC).
 */

const CHROMIUM = Deno.env.get("MCPX_CHROMIUM") ?? "/usr/bin/chromium";

interface Pending {
  resolve: (v: Record<string, unknown>) => void;
  reject: (e: Error) => void;
}

/** A running headless Chromium. Dispose (or `close()`) to end it and every process it started. */
export class Chromium implements AsyncDisposable {
  readonly #child: Deno.ChildProcess;
  readonly #ws: WebSocket;
  readonly #dir: string;
  readonly #stderr: Promise<void>;
  readonly #pending = new Map<number, Pending>();
  #next = 0;
  #closed = false;

  private constructor(
    child: Deno.ChildProcess,
    ws: WebSocket,
    dir: string,
    stderr: Promise<void>,
  ) {
    this.#child = child;
    this.#ws = ws;
    this.#dir = dir;
    this.#stderr = stderr;
    ws.onmessage = (e) => {
      const msg = JSON.parse(String(e.data));
      if (typeof msg.id !== "number") return; // events: nothing here waits on them
      const p = this.#pending.get(msg.id);
      if (!p) return;
      this.#pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`CDP: ${msg.error.message}`));
      else p.resolve(msg.result ?? {});
    };
  }

  /** Starts Chromium headless, with a window of `width`×`height`. */
  static async launch(options: { width?: number; height?: number } = {}): Promise<Chromium> {
    const dir = await Deno.makeTempDir({ prefix: "mcpx-chromium-" });
    const child = new Deno.Command(CHROMIUM, {
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--no-first-run",
        "--no-default-browser-check",
        "--hide-scrollbars",
        `--window-size=${options.width ?? 1280},${options.height ?? 800}`,
        `--user-data-dir=${dir}/profile`,
        "--remote-debugging-port=0",
        "about:blank",
      ],
      env: { HOME: dir, PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    // The browser's address is the line it prints first; the rest of stderr is drained.
    const lines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    let url: string | undefined;
    const deadline = setTimeout(() => child.kill("SIGKILL"), 30_000);
    while (url === undefined) {
      const { value, done } = await lines.read();
      if (done) break;
      text += value;
      url = /DevTools listening on (ws:\/\/\S+)/.exec(text)?.[1];
    }
    clearTimeout(deadline);
    const stderr = (async () => {
      while (!(await lines.read()).done) { /* drained */ }
    })();
    if (url === undefined) {
      await child.status;
      await stderr;
      await Deno.remove(dir, { recursive: true }).catch(() => {});
      throw new Error(`chromium did not start: ${text.slice(-2000)}`);
    }
    const ws = new WebSocket(url);
    await new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.onerror = () => reject(new Error(`cannot connect to ${url}`));
    });
    return new Chromium(child, ws, dir, stderr);
  }

  /** Sends one command (to a page's session when `session` is given) and waits for its answer. */
  send(
    method: string,
    params: Record<string, unknown> = {},
    session?: string,
  ): Promise<Record<string, unknown>> {
    const id = ++this.#next;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#ws.send(
        JSON.stringify({ id, method, params, ...(session ? { sessionId: session } : {}) }),
      );
    });
  }

  /** A new tab (its own sessionStorage), blank until {@linkcode Page.goto}. */
  async page(): Promise<Page> {
    const { targetId } = await this.send("Target.createTarget", { url: "about:blank" });
    const { sessionId } = await this.send("Target.attachToTarget", { targetId, flatten: true });
    const page = new Page(this, String(targetId), String(sessionId));
    await page.send("Page.enable");
    await page.send("Runtime.enable");
    return page;
  }

  /** Ends the browser, waits for it, and removes its profile. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const closed = new Promise((r) => (this.#ws.onclose = r));
    await this.send("Browser.close").catch(() => {});
    this.#ws.close();
    await closed;
    const killer = setTimeout(() => {
      try {
        this.#child.kill("SIGKILL");
      } catch { /* gone */ }
    }, 5000);
    await this.#child.status;
    clearTimeout(killer);
    await this.#stderr;
    await Deno.remove(this.#dir, { recursive: true }).catch(() => {});
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** Keys without a character, by their virtual key codes. */
const NAMED_KEYS: Record<string, number> = {
  Enter: 13,
  Escape: 27,
  ArrowLeft: 37,
  ArrowUp: 38,
  ArrowRight: 39,
  ArrowDown: 40,
};

/** One tab. */
export class Page {
  readonly browser: Chromium;
  readonly targetId: string;
  readonly session: string;

  constructor(browser: Chromium, targetId: string, session: string) {
    this.browser = browser;
    this.targetId = targetId;
    this.session = session;
  }

  send(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    return this.browser.send(method, params, this.session);
  }

  /** Navigates, without waiting for the load. */
  async goto(url: string): Promise<void> {
    const out = await this.send("Page.navigate", { url });
    if (out.errorText) throw new Error(`cannot load ${url}: ${out.errorText}`);
  }

  /** The value of `expression` in the page (awaited when it is a promise). */
  async eval<T = unknown>(expression: string): Promise<T> {
    const out = await this.send("Runtime.evaluate", {
      expression,
      returnByValue: true,
      awaitPromise: true,
    });
    const details = out.exceptionDetails as { exception?: { description?: string } } | undefined;
    if (details) throw new Error(`in the page: ${details.exception?.description ?? "exception"}`);
    return (out.result as { value: T }).value;
  }

  /** Polls `expression` every 25 ms until it is truthy; its value, or an error after `ms`. */
  async until<T = unknown>(expression: string, ms = 20_000): Promise<T> {
    const deadline = Date.now() + ms;
    let last: unknown;
    while (Date.now() < deadline) {
      try {
        last = await this.eval<T>(expression);
        if (last) return last as T;
      } catch (e) {
        last = e;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`the page never had ${expression} (last: ${String(last)})`);
  }

  /** Clicks the first element matching `selector` (a DOM click, as a mouse's would be). */
  async click(selector: string): Promise<void> {
    const clicked = await this.eval<boolean>(
      `(() => { const el = document.querySelector(${
        JSON.stringify(selector)
      }); if (!el) return false; el.click(); return true; })()`,
    );
    if (!clicked) throw new Error(`nothing matches ${selector}`);
  }

  /** Types one key into the page, as the keyboard would: a character, or `ArrowDown` and such. */
  async key(key: string): Promise<void> {
    const named = NAMED_KEYS[key];
    const down = named
      ? { type: "rawKeyDown", key, code: key, windowsVirtualKeyCode: named }
      : { type: "keyDown", key, text: key };
    await this.send("Input.dispatchKeyEvent", down);
    await this.send("Input.dispatchKeyEvent", {
      type: "keyUp",
      key,
      ...(named ? { code: key, windowsVirtualKeyCode: named } : {}),
    });
  }

  /** A PNG of the viewport. */
  async screenshot(): Promise<Uint8Array> {
    const { data } = await this.send("Page.captureScreenshot", { format: "png" });
    return Uint8Array.from(atob(String(data)), (c) => c.charCodeAt(0));
  }

  async close(): Promise<void> {
    await this.browser.send("Target.closeTarget", { targetId: this.targetId });
  }
}
