/**
 * Starts the built-in controllers the settings select (controllers/registry.ts), hosted as any
 * controller is (src/cli/hosted-controllers.ts): the `controller-manager` daemon, `svc up` and the
 * test cluster all start them through here. Selected controllers not built yet, and built ones
 * whose prerequisites are missing, are logged with the reason and stay off.
 */
import { buildControllers, NEEDS_CLOUD_PROVIDER } from '../../controllers/registry.js';
import { CONTROLLER_SERVICE_ACCOUNTS } from '../apiserver/auth/rbac/bootstrap-policy.js';
import type { SvcObject } from '../api/types.js';
import type { ControllerDefinition } from '../runtime/define-controller.js';
import type { ControllerSettings } from './controller-manager-options.js';
import { startHostedControllers, type HostedControllers, type HostedControllersOptions } from './hosted-controllers.js';

export interface BuiltinControllersOptions extends Omit<HostedControllersOptions, 'definitions' | 'startIntervalMs'> {
  settings: ControllerSettings;
  /** Users' controllers hosted next to the built-in ones (svc up --controller-module). */
  extra?: readonly ControllerDefinition<SvcObject>[];
}

export interface BuiltinControllers extends HostedControllers {
  /** Names of the built-in controllers running. */
  readonly running: readonly string[];
}

/** `[controller, account]` for the selected controllers that run as their own service account with --use-service-account-credentials. */
export function controllerAccounts(settings: ControllerSettings): [string, string][] {
  return settings.selection.enabled.flatMap((c) => {
    const account = CONTROLLER_SERVICE_ACCOUNTS[c.name];
    return account ? [[c.name, account] as [string, string]] : [];
  });
}

export function startBuiltinControllers(o: BuiltinControllersOptions): BuiltinControllers {
  const { selection, config, startIntervalMs } = o.settings;
  const { definitions, off } = buildControllers(selection.enabled, config);
  for (const { name, reason } of off) o.logger.warn({ controller: name, reason }, 'controller not started');
  if (selection.notBuilt.length) o.logger.info({ controllers: selection.notBuilt }, 'controllers of the list not built yet in this version: skipped');
  if (selection.needCloudProvider.length) o.logger.info({ controllers: selection.needCloudProvider }, `controllers that need a cloud provider: skipped (${NEEDS_CLOUD_PROVIDER})`);
  const { settings: _settings, extra, ...host } = o;
  const hosted = startHostedControllers({ ...host, definitions: [...definitions, ...(extra ?? [])], startIntervalMs });
  // One /healthz check per controller: failing once its machine has ended without being stopped.
  // Looked up per check: a step-down replaces the controllers (same order).
  hosted.controllers.forEach((first, i) => {
    hosted.healthChecks.push({
      name: first.name,
      check: () => {
        const c = hosted.controllers[i]!;
        return c.actor.getSnapshot().status === 'active' ? undefined : `controller ${c.name} ended (${JSON.stringify(c.actor.getSnapshot().value)})`;
      },
    });
  });
  return Object.assign(hosted, { running: definitions.map((d) => d.name) });
}
