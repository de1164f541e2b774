/**
 * `svc explain <type>/<name>`: what the controller that manages an object is doing to it — the
 * object's state in the controller's lifecycle, since when, what holds it there and its last
 * transitions — asked of the daemon running the controller (`/debug/controllers/...`, see
 * src/runtime/debug-controllers-handler.ts):
 *
 *   svc explain deployment/web -n shop --svcconfig ~/.svc/admin.svcconfig            svc up: its API server port serves it
 *   svc explain deploy/web --svcconfig admin.svcconfig --controller-manager https://127.0.0.1:10257 \
 *       --certificate-authority cm-ca.crt                                             a controller manager of its own
 *
 * The credentials are the client configuration's; the controller manager authenticates and
 * authorizes them as for its other debug paths. Exit status 1 with the server's message when
 * the object is not followed (or the type has no lifecycle).
 */
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { LIFECYCLES } from '../../machines/lifecycles/index.js';
import { builtinResources } from '../api/registry.js';
import type { LifecycleObjectFacts } from '../runtime/lifecycle-tracker.js';

export interface ExplainOptions {
  namespace: string;
  svcconfig?: string;
  master?: string;
  controllerManager?: string;
  certificateAuthority?: string;
  insecureSkipTlsVerify?: boolean;
  output: 'text' | 'json';
}

/** `deploy/web` → the lifecycle's controller, the kind and whether it is namespaced. */
export function resolveTarget(arg: string): { controller: string; kind: string; namespaced: boolean; name: string } {
  const slash = arg.indexOf('/');
  if (slash <= 0 || slash === arg.length - 1) throw new Error(`expected <type>/<name> (e.g. deployment/web), got "${arg}"`);
  const type = arg.slice(0, slash).toLowerCase().split('.')[0]!;
  const name = arg.slice(slash + 1);
  const def = builtinResources().find((d) => d.plural === type || d.singular === type || d.kind.toLowerCase() === type || d.shortNames.includes(type));
  if (!def) throw new Error(`unknown resource type "${arg.slice(0, slash)}"`);
  const lifecycle = LIFECYCLES.find((l) => l.kind === def.kind);
  if (!lifecycle) {
    throw new Error(`no built-in controller follows ${def.kind} objects through a lifecycle; these do: ${[...new Set(LIFECYCLES.map((l) => l.kind))].join(', ')}`);
  }
  return { controller: lifecycle.controller, kind: def.kind, namespaced: def.namespaced, name };
}

/** The text `svc explain` prints for one object. */
export function explainText(f: LifecycleObjectFacts & { controller: string; kind: string }): string {
  const lines = [
    `${f.kind} ${f.key} (controller ${f.controller})`,
    `State:    ${f.state} for ${duration(f.forMs)} (since ${f.since})`,
    ...(f.holds ? [`Held by:  ${f.holds}`] : []),
  ];
  if (f.transitions.length) {
    lines.push('Transitions (oldest first):');
    for (const t of f.transitions) lines.push(`  ${t.at}  ${t.from} → ${t.to}`);
  }
  return `${lines.join('\n')}\n`;
}

function duration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60}s`;
  return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
}

export async function runExplain(arg: string, o: ExplainOptions, write: (s: string) => void): Promise<void> {
  const target = resolveTarget(arg);
  const { HttpTransport, loadClientConfig } = await import('../client/index.js');
  if (!o.svcconfig && !o.master) throw new Error('no API server given: pass --svcconfig (a client configuration file) or --master (the server address)');
  const cfg = loadClientConfig({ ...(o.svcconfig ? { svcconfig: o.svcconfig } : {}), ...(o.master ? { master: o.master } : {}) });
  if (o.controllerManager) {
    cfg.server = o.controllerManager.replace(/\/+$/, '');
    // The controller manager's serving certificate is not the API server's: trust what is given for it.
    const { ca: _ca, serverName: _sn, ...tls } = cfg.tls;
    cfg.tls = { ...tls, insecureSkipVerify: o.insecureSkipTlsVerify === true, ...(o.certificateAuthority ? { ca: readFileSync(o.certificateAuthority, 'utf8') } : {}) };
  } else if (o.insecureSkipTlsVerify) cfg.tls.insecureSkipVerify = true;
  const transport = new HttpTransport(cfg, { contentType: 'application/json', userAgent: 'svc-explain' });
  try {
    const key = target.namespaced ? `${encodeURIComponent(o.namespace)}/${encodeURIComponent(target.name)}` : encodeURIComponent(target.name);
    const res = await transport.request({ method: 'GET', path: `/debug/controllers/${target.controller}/objects/${key}` });
    const body = res.body as (LifecycleObjectFacts & { controller: string; kind: string }) | { message?: string };
    if (res.status !== 200) {
      const message = typeof body === 'object' && body && 'message' in body && body.message ? body.message : `HTTP ${res.status}`;
      throw new Error(`${cfg.server}: ${message}`);
    }
    write(o.output === 'json' ? `${JSON.stringify(body, null, 2)}\n` : explainText(body as LifecycleObjectFacts & { controller: string; kind: string }));
  } finally {
    await transport.close();
  }
}

export function explainCommand(): Command {
  return new Command('explain')
    .description("Says what the controller managing an object is doing to it: the object's state in the controller's lifecycle, since when, what holds it there, its last transitions.")
    .argument('<type/name>', 'the object, as kubectl names it (deployment/web, deploy/web)')
    .option('-n, --namespace <namespace>', 'the object\'s namespace (namespaced kinds)', 'default')
    .option('--svcconfig <file>', 'client configuration file: credentials, and the server when --controller-manager is not given (svc up serves the controllers on its API server port)')
    .option('--master <url>', 'the API server address (overrides the file\'s)')
    .option('--controller-manager <url>', 'ask a controller manager of its own (its secure port, e.g. https://127.0.0.1:10257) instead of the API server')
    .option('--certificate-authority <file>', 'CA bundle to trust for --controller-manager\'s serving certificate')
    .option('--insecure-skip-tls-verify', 'do not verify the serving certificate (a self-signed controller manager)')
    .addOption(new Option('-o, --output <format>', 'text or json').choices(['text', 'json']).default('text'))
    .helpOption('-h, --help', 'Print help.')
    .action(async (arg: string, opts: ExplainOptions) => {
      await runExplain(arg, opts, (s) => process.stdout.write(s));
    });
}
