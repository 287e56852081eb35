/** @module Loopback host names: who may use plain http, or run without a token, because the peer is this machine. */

/** Whether a host name (no port; IPv6 bracketed or not) is a loopback address or a `localhost` name. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
