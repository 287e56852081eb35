/**
 * @module Splitting an upstream's stdout into newline-delimited messages with bounded memory.
 * A line is kept (as the chunks it arrived in, joined once at its newline) only while it is within
 * the limit; past it, the framer keeps just the line's first and last bytes and counts the rest,
 * so a 64 MiB answer costs a few hundred bytes of memory, not 64 MiB. A line that never ends is
 * given up on at a hard ceiling.
 */
import { BoundedRun, concatBytes } from "./oversize_message.ts";

/** What the framer found in the bytes it was given. */
export type Frame =
  /** One line within the limit, without its newline. */
  | { kind: "line"; bytes: Uint8Array }
  /** A line over the limit: its size and its edges, the middle discarded. */
  | { kind: "oversize"; size: number; head: string; tail: string }
  /** `size` bytes without a newline, past the ceiling: the stream cannot be framed any more. */
  | { kind: "runaway"; size: number };

/** Bounded newline framing. One instance per stream. */
export class LineFramer {
  readonly #ceiling: number;
  readonly #line: BoundedRun;
  #dead = false;

  /** Lines up to `limit` bytes are kept; an unterminated line past `ceiling` bytes is fatal. */
  constructor(limit: number, ceiling: number) {
    this.#line = new BoundedRun(limit);
    this.#ceiling = Math.max(ceiling, limit);
  }

  /** The frames completed by `chunk` (after a `runaway` frame, always none). */
  push(chunk: Uint8Array): Frame[] {
    const frames: Frame[] = [];
    let start = 0;
    while (!this.#dead) {
      const newline = chunk.indexOf(10, start);
      if (newline < 0) {
        this.#append(chunk.subarray(start), frames);
        break;
      }
      this.#append(chunk.subarray(start, newline), frames);
      if (this.#dead) break;
      const frame = this.#endLine();
      if (frame) frames.push(frame);
      start = newline + 1;
    }
    return frames;
  }

  #append(piece: Uint8Array, frames: Frame[]): void {
    this.#line.add(piece);
    // Within the limit a line is never past the ceiling, which is at least the limit.
    if (this.#line.size > this.#ceiling) {
      this.#dead = true;
      frames.push({ kind: "runaway", size: this.#line.size });
    }
  }

  #endLine(): Frame | null {
    const line = this.#line.end();
    if (line.oversize) {
      return { kind: "oversize", size: line.size, head: line.head, tail: line.tail };
    }
    if (line.size === 0) return null;
    if (line.pieces.length === 1) return { kind: "line", bytes: line.pieces[0] };
    return { kind: "line", bytes: concatBytes(line.pieces) };
  }
}
