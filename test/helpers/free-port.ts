/**
 * A loopback port for a daemon a test starts: free when returned, and drawn from below the kernel's
 * ephemeral range (net.ipv4.ip_local_port_range, 32768-60999 here).
 *
 * Why not `listen(0)`: the kernel hands out port 0 binds from the same ephemeral range it uses for
 * outgoing connections. Between the probe closing and the daemon binding, any client connection on
 * the machine (another test file's, running beside this one) can take that port, and the daemon then
 * exits with EADDRINUSE before the test starts. A port below the range is never taken that way.
 *
 * Two test files running side by side must not draw the same port either (a daemon binds seconds
 * after the probe on a loaded machine): scripts/run-tests.mjs tells each file its slot
 * (TEST_WORKER of TEST_WORKERS) and each slot draws from its own share of the range. Within a file,
 * the memory of ports already handed out keeps them apart.
 */
import { createServer } from 'node:net';

const RANGE_LOW = 20_000;
const RANGE_HIGH = 32_000;
const WORKERS = Math.max(1, Number(process.env['TEST_WORKERS'] ?? 1) || 1);
const WORKER = Math.min(WORKERS - 1, Math.max(0, Number(process.env['TEST_WORKER'] ?? 0) || 0));
const SHARE = Math.floor((RANGE_HIGH - RANGE_LOW) / WORKERS);
const LOW = RANGE_LOW + WORKER * SHARE;
const HIGH = LOW + SHARE;
const handedOut = new Set<number>();

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.unref();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (handedOut.has(port)) continue;
    if (await bindable(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free loopback port between ${LOW} and ${HIGH} after 200 tries`);
}
