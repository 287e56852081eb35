/** @module Opaque cursors for list results. */
import { ErrorCode, McpError } from "./session/mcp_protocol.ts";

/** Items per page of any list. */
export const PAGE_SIZE = 100;

/** One page of `items` starting at `cursor`, with `nextCursor` when more remain. */
export function paginate<T>(
  items: readonly T[],
  cursor?: string,
): { page: T[]; nextCursor?: string } {
  let start = 0;
  if (cursor !== undefined) {
    const decoded = /^o(\d+)$/.exec(safeAtob(cursor));
    if (!decoded) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `invalid cursor "${cursor}"; start again without one`,
      );
    }
    start = Number(decoded[1]);
  }
  const end = start + PAGE_SIZE;
  return {
    page: items.slice(start, end),
    nextCursor: end < items.length ? btoa(`o${end}`) : undefined,
  };
}

function safeAtob(s: string): string {
  try {
    return atob(s);
  } catch {
    return "";
  }
}
