/**
 * The last lines written to a byte stream, kept in bounded memory.
 *
 * A server's stderr is the only explanation we get when it fails, so it is always drained (a
 * child blocks once its pipe buffer fills) but never stored whole: a child that floods stderr
 * must not grow the daemon. Only the last `maxLines` lines are kept, and each line keeps its
 * first `maxLineBytes` bytes; the rest of an over-long line is dropped as it arrives.
 */
export class LineRing {
  readonly #maxLines: number;
  readonly #maxLineBytes: number;
  readonly #lines: string[] = [];
  /** Bytes of the line in progress (the part we keep). */
  readonly #partial: Uint8Array;
  #partialLength = 0;
  /** Whether the line in progress lost bytes past `maxLineBytes`. */
  #partialCut = false;
  readonly #decoder = new TextDecoder();

  constructor(options: { maxLines?: number; maxLineBytes?: number } = {}) {
    this.#maxLines = options.maxLines ?? 50;
    this.#maxLineBytes = options.maxLineBytes ?? 2048;
    this.#partial = new Uint8Array(this.#maxLineBytes);
  }

  /** Takes the next chunk of the stream. */
  push(chunk: Uint8Array): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      this.#keep(chunk.subarray(start, end));
      if (newline === -1) break;
      this.#endLine();
      start = newline + 1;
    }
  }

  /** Ends the stream: a last line without a newline becomes a line. */
  flush(): void {
    if (this.#partialLength > 0 || this.#partialCut) this.#endLine();
  }

  /** The kept lines, oldest first, including a line still in progress. */
  lines(): string[] {
    const lines = [...this.#lines];
    if (this.#partialLength > 0 || this.#partialCut) lines.push(this.#render());
    if (lines.length > this.#maxLines) lines.splice(0, lines.length - this.#maxLines);
    return lines;
  }

  #keep(bytes: Uint8Array): void {
    const room = this.#maxLineBytes - this.#partialLength;
    if (bytes.length > room) this.#partialCut = true;
    const kept = bytes.subarray(0, Math.min(room, bytes.length));
    this.#partial.set(kept, this.#partialLength);
    this.#partialLength += kept.length;
  }

  #endLine(): void {
    this.#lines.push(this.#render());
    if (this.#lines.length > this.#maxLines) this.#lines.shift();
    this.#partialLength = 0;
    this.#partialCut = false;
  }

  #render(): string {
    let text = this.#decoder.decode(this.#partial.subarray(0, this.#partialLength));
    if (text.endsWith("\r")) text = text.slice(0, -1);
    if (this.#partialCut) {
      // The cut may have split a multi-byte character; drop its remains before marking the cut.
      text = text.replace(/\uFFFD+$/, "") + "…";
    }
    return text;
  }
}
