/** @module Running clean-up when a server's connection closes, next to the `onclose` a transport sets. */
import type { Server } from "../sdk.ts";

/**
 * Runs `cleanup` when the connection closes. Transports assign `server.onclose` themselves after
 * the factory returns (stdio waits on it), so a plain assignment here would be overwritten; the
 * property keeps whatever they assign and calls it after `cleanup`. Call once per server.
 */
export function onServerClose(server: Server, cleanup: () => void): void {
  let assigned = server.onclose;
  Object.defineProperty(server, "onclose", {
    configurable: true,
    enumerable: true,
    get: () => () => {
      try {
        cleanup();
      } finally {
        assigned?.();
      }
    },
    set: (fn: (() => void) | undefined) => {
      assigned = fn;
    },
  });
}
