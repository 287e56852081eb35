/**
 * @module Splitting an upstream's stdout into newline-delimited messages with bounded memory.
 * A line is kept (as the chunks it arrived in, joined once at its newline) only while it is within
 * the limit; past it, the framer keeps just the line's first and last bytes and counts the rest,
 * so a 64 MiB answer costs a few hundred bytes of memory, not 64 MiB. A line that never ends is
 * given up on at a hard ceiling.
 */
import { ByteEdges } from "./oversize_message.ts";

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
  readonly #limit: number;
  readonly #ceiling: number;
  #chunks: Uint8Array[] = [];
  #size = 0;
  #edges: ByteEdges | null = null;
  #dead = false;

  /** Lines up to `limit` bytes are kept; an unterminated line past `ceiling` bytes is fatal. */
  constructor(limit: number, ceiling: number) {
    this.#limit = limit;
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
    if (piece.length === 0) return;
    if (this.#edges) {
      this.#edges.add(piece);
    } else if (this.#size + piece.length <= this.#limit) {
      this.#chunks.push(piece);
      this.#size += piece.length;
      return;
    } else {
      // Over the limit: keep the edges of what was collected and of what comes, nothing else.
      this.#edges = new ByteEdges();
      for (const kept of this.#chunks) this.#edges.add(kept);
      this.#edges.add(piece);
      this.#chunks = [];
      this.#size = 0;
    }
    if (this.#edges.size > this.#ceiling) {
      this.#dead = true;
      frames.push({ kind: "runaway", size: this.#edges.size });
    }
  }

  #endLine(): Frame | null {
    if (this.#edges) {
      const { head, tail } = this.#edges.text();
      const size = this.#edges.size;
      this.#edges = null;
      return { kind: "oversize", size, head, tail };
    }
    const chunks = this.#chunks;
    const size = this.#size;
    this.#chunks = [];
    this.#size = 0;
    if (size === 0) return null;
    if (chunks.length === 1) return { kind: "line", bytes: chunks[0] };
    const bytes = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      bytes.set(c, at);
      at += c.length;
    }
    return { kind: "line", bytes };
  }
}
