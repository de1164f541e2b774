/**
 * Helpers for src/client tests against the real apiserver: a client built from a real svcconfig
 * file, metric reads from /metrics, and a pass-through ApiClient that counts calls and can hold
 * new watches back (to "pause" an informer between two watches).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Observable } from 'rxjs';
import { connect, type Connection, type ConnectOptions } from '../../src/client/connect.js';
import type { ApiClient } from '../../src/client/types.js';
import type { ApiServerProcess } from './apiserver.js';

/**
 * Writes a kubeconfig-shaped file trusting the server's CA; returns its path. The user logs in
 * with `user` (a client certificate's files, e.g. from test/helpers/pki.ts) or `token`; neither
 * sends the token `anything`.
 */
export function writeSvcconfig(
  server: Pick<ApiServerProcess, 'url' | 'certDir'>,
  opts: { serverUrl?: string; name?: string; user?: { certFile: string; keyFile: string }; token?: string } = {},
): string {
  const file = join(server.certDir, opts.name ?? 'svcconfig.yaml');
  const credentials = opts.user
    ? [`    client-certificate: ${opts.user.certFile}`, `    client-key: ${opts.user.keyFile}`]
    : [`    token: ${opts.token ?? 'anything'}`];
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: test',
      'clusters:',
      '- name: test-cluster',
      '  cluster:',
      `    server: ${opts.serverUrl ?? server.url}`,
      '    certificate-authority: apiserver.crt',
      'users:',
      '- name: test-user',
      '  user:',
      ...credentials,
      'contexts:',
      '- name: test',
      '  context:',
      '    cluster: test-cluster',
      '    user: test-user',
      '',
    ].join('\n'),
  );
  return file;
}

/** A client for `server` through a svcconfig file (no client-side rate limit unless given). */
export function clientFor(server: ApiServerProcess, opts: Partial<ConnectOptions> = {}): Connection {
  return connect({ svcconfig: writeSvcconfig(server), qps: 0, ...opts });
}

/** Sum of a metric's samples whose labels include `labels`, from the server's /metrics. */
export async function metric(server: ApiServerProcess, name: string, labels: Record<string, string> = {}): Promise<number> {
  const r = await server.request('GET', '/metrics');
  let sum = 0;
  for (const line of r.text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^(\w+)(?:\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) sum += Number(m[3]);
  }
  return sum;
}

/** Polls `check` every 20 ms until it holds (real time; for waiting on the real server). */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface ObservedClient {
  client: ApiClient;
  calls: { list: number; watch: number };
  /** Watches opened after `hold()` wait until `release()`; `held` resolves when one is waiting. */
  hold(): { held: Promise<void>; release(): void };
}

/** Passes every call to `inner`, counting lists and watches; can hold new watches back. */
export function observedClient(inner: ApiClient): ObservedClient {
  const calls = { list: 0, watch: 0 };
  let gate: { open: Promise<void>; onHeld: () => void } | undefined;
  const client: ApiClient = {
    ...inner,
    list: (ref, o) => {
      calls.list++;
      return inner.list(ref, o);
    },
    watch: (ref, o) =>
      new Observable((sub) => {
        let s: { unsubscribe(): void } | undefined;
        let closed = false;
        const g = gate;
        const begin = () => {
          if (closed) return;
          calls.watch++;
          s = inner.watch(ref, o).subscribe(sub as never);
        };
        if (g) {
          g.onHeld();
          void g.open.then(begin);
        } else begin();
        return () => {
          closed = true;
          s?.unsubscribe();
        };
      }),
  };
  return {
    client,
    calls,
    hold() {
      let release!: () => void;
      let onHeld!: () => void;
      const open = new Promise<void>((r) => (release = r));
      const held = new Promise<void>((r) => (onHeld = r));
      gate = { open, onHeld };
      return {
        held,
        release() {
          gate = undefined;
          release();
        },
      };
    },
  };
}
