// Reading a zip archive held in memory (an MCP bundle, `.mcpb`): its central directory, each
// entry stored or deflated. No ZIP64, no encryption: a bundle that needs either is refused.

import { inflateRawSync } from "node:zlib";

/** The most all of an archive's files may hold, inflated: a small archive can say terabytes. */
export const MAX_UNPACKED_BYTES = 1024 * 1024 * 1024;

/** One file of an archive. */
export interface ZipEntry {
  name: string;
  /** The Unix mode the archive records (the upper half of its external attributes), or 0. */
  mode: number;
  /** The file's bytes, inflated on demand. */
  bytes(): Uint8Array;
}

/**
 * The files of a zip archive, directories left out.
 * @throws {SyntaxError} for bytes that are not an archive this reader takes, saying why
 */
export function readZip(data: Uint8Array): ZipEntry[] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  // The end record sits in the last 22 bytes plus a comment of at most 64 KiB.
  let end = -1;
  for (let i = data.length - 22; i >= Math.max(0, data.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new SyntaxError("it is not a zip archive (no end of central directory)");
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  if (count === 0xffff || at === 0xffffffff) throw new SyntaxError("it is a ZIP64 archive");
  const out: ZipEntry[] = [];
  let unpacked = 0;
  for (let n = 0; n < count; n++) {
    if (at + 46 > data.length || view.getUint32(at, true) !== 0x02014b50) {
      throw new SyntaxError("its central directory is damaged");
    }
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const size = view.getUint32(at + 20, true);
    const full = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extra = view.getUint16(at + 30, true);
    const comment = view.getUint16(at + 32, true);
    const mode = view.getUint32(at + 38, true) >>> 16;
    const local = view.getUint32(at + 42, true);
    const name = new TextDecoder().decode(data.subarray(at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extra + comment;
    if (flags & 1) throw new SyntaxError(`"${name}" is encrypted`);
    if (name.endsWith("/")) continue;
    if (method !== 0 && method !== 8) {
      throw new SyntaxError(
        `"${name}" is compressed with method ${method}, not stored or deflated`,
      );
    }
    if (local + 30 > data.length || view.getUint32(local, true) !== 0x04034b50) {
      throw new SyntaxError(`"${name}" has no local header`);
    }
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const raw = data.subarray(start, start + size);
    if (raw.length !== size) throw new SyntaxError(`"${name}" is cut short`);
    unpacked += full;
    if (unpacked > MAX_UNPACKED_BYTES || (method === 0 && full !== size)) {
      throw new SyntaxError(`its files hold more than the ${MAX_UNPACKED_BYTES} bytes unpacked`);
    }
    out.push({ name, mode, bytes: () => method === 0 ? raw : inflate(raw, full, name) });
  }
  return out;
}

/** Inflates one file to no more than the size the directory gives it: a bomb stops there. */
function inflate(raw: Uint8Array, full: number, name: string): Uint8Array {
  let out: Uint8Array;
  try {
    out = new Uint8Array(inflateRawSync(raw, { maxOutputLength: Math.max(full, 1) }));
  } catch (e) {
    throw new SyntaxError(
      (e as { code?: string }).code === "ERR_BUFFER_TOO_LARGE"
        ? `"${name}" inflates to more than the ${full} bytes its directory says`
        : `"${name}" is not deflated data`,
    );
  }
  if (out.length !== full) {
    throw new SyntaxError(`"${name}" inflates to ${out.length} bytes, not ${full}`);
  }
  return out;
}
