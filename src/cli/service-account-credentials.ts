/**
 * `--use-service-account-credentials`: each built-in controller calls the API server as its own
 * service account instead of as the controller manager, so RBAC can give each only what it needs
 * (the default policy's `system:controller:<account>` roles). The established dynamic client
 * builder's behaviour, kept:
 *
 * - the account is `svc-system/<account>` with the established name (`replicaset-controller`,
 *   `generic-garbage-collector`, ...; controllers/registry.ts), made with the manager's own
 *   credentials if missing;
 * - its credential is a TokenRequest token (one hour), asked for with the manager's credentials and
 *   renewed in the background once 80% of its life has passed; a renewal that fails is tried
 *   again every 10 s while the old token is still good;
 * - the controller's client has the server and CA of the manager's configuration and no other
 *   credential (no client certificate, no token of the manager's);
 * - the shared informers, the leader-election lock and the controllers that must work before any
 *   token does (the token controller) keep the manager's credentials.
 *
 * In `svc up` the controllers call the server in-process, and a transport carries its user: there
 * each controller's client is the service account's user directly (`inProcessServiceAccountUser`).
 * Either way a first token or account that cannot be had stops the start, naming the account.
 */
import type { Logger } from 'pino';
import type { ClusterRole, ClusterRoleBinding, ServiceAccount } from '../api/generated/kinds.js';
import type { SvcObject } from '../api/types.js';
import { serviceAccountGroups, serviceAccountUsername } from '../api/service-account-token-format.js';
import { AUTHENTICATED_GROUP } from '../apiserver/auth/user.js';
import { controllerClusterRole } from '../runtime/controller-permissions.js';
import { createOrUpdate } from '../runtime/create-or-update.js';
import type { ControllerDefinition } from '../runtime/define-controller.js';
import { isAlreadyExists, isNotFound } from '../client/api-errors.js';
import type { Connection } from '../client/connect.js';
import type { TokenSource } from '../client/file-token-source.js';
import { resources } from '../client/typed.js';
import type { ApiClient } from '../client/types.js';
import { OptionsError } from './common-options.js';

/** Where the controllers' accounts live (established: kube-system). */
export const CONTROLLER_ACCOUNT_NAMESPACE = 'svc-system';
/** The token lifetime the established builder asks for. */
const EXPIRATION_SECONDS = 3600;
/** Renewed once this share of the lifetime is left. */
const LEEWAY = 0.2;
const RETRY_MS = 10_000;
/** Accounts made and tokens asked for at once at start. */
const CREDENTIAL_CONCURRENCY = 8;

/** The account `svc-system/<name>`, made if missing (a concurrent maker's copy is fine). */
export async function ensureServiceAccount(root: ApiClient, name: string, namespace = CONTROLLER_ACCOUNT_NAMESPACE): Promise<ServiceAccount> {
  try {
    return await root.get(resources.serviceaccounts, namespace, name);
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
  try {
    return await root.create(resources.serviceaccounts, namespace, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } });
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
    return root.get(resources.serviceaccounts, namespace, name);
  }
}

/** The user a service account's token authenticates as (established). */
export function serviceAccountUser(account: ServiceAccount): { username: string; uid?: string; groups: string[] } {
  const ns = account.metadata.namespace ?? CONTROLLER_ACCOUNT_NAMESPACE;
  return {
    username: serviceAccountUsername(ns, account.metadata.name!),
    ...(account.metadata.uid ? { uid: account.metadata.uid } : {}),
    groups: [...serviceAccountGroups(ns), AUTHENTICATED_GROUP],
  };
}

interface TokenRequestStatus {
  status?: { token?: string; expirationTimestamp?: string };
}

/** A TokenRequest token for an account, renewed in the background before it ends. */
export class TokenRequestSource implements TokenSource {
  private current = '';
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  private constructor(
    private readonly root: ApiClient,
    private readonly namespace: string,
    private readonly name: string,
    private readonly logger: Logger,
  ) {}

  /** Resolves once the first token is there (rejects naming the account when it cannot be had). */
  static async start(root: ApiClient, namespace: string, name: string, logger: Logger): Promise<TokenRequestSource> {
    const s = new TokenRequestSource(root, namespace, name, logger);
    await s.renew();
    return s;
  }

  token(): string {
    return this.current;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private async renew(): Promise<void> {
    const answer = await this.root.subresource<TokenRequestStatus>(resources.serviceaccounts, this.namespace, this.name, 'token', 'POST', {
      apiVersion: 'authentication.svc.io/v1',
      kind: 'TokenRequest',
      metadata: {},
      spec: { expirationSeconds: EXPIRATION_SECONDS },
    });
    const token = answer.status?.token;
    if (!token) throw new Error(`the TokenRequest for ${this.namespace}/${this.name} returned no token`);
    this.current = token;
    const expires = Date.parse(answer.status?.expirationTimestamp ?? '') || Date.now() + EXPIRATION_SECONDS * 1000;
    const lifetime = Math.max(0, expires - Date.now());
    this.schedule(Math.max(1000, lifetime - lifetime * LEEWAY), expires);
  }

  private schedule(inMs: number, expires: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.renew().catch((err: unknown) => {
        this.logger.warn({ err: (err as Error).message, account: `${this.namespace}/${this.name}` }, 'could not renew the controller\'s service-account token; trying again');
        this.schedule(Math.min(RETRY_MS, Math.max(1000, expires - Date.now())), expires);
      });
    }, inMs);
    this.timer.unref();
  }
}

export interface ControllerCredentials {
  /** The client controller `name` uses; undefined: the manager's own. */
  clientFor(name: string): ApiClient | undefined;
  /** Stops the renewals and closes the controllers' connections. */
  close(): Promise<void>;
}

/**
 * Over HTTPS (the controller-manager daemon): for each `[controller, account]`, the account made if
 * missing and a client `connect(tokenSource)` built with its token.
 */
export async function tokenCredentials(o: {
  root: ApiClient;
  accounts: ReadonlyArray<readonly [controller: string, account: string]>;
  connect(tokenSource: TokenSource): Connection | Promise<Connection>;
  logger: Logger;
}): Promise<ControllerCredentials> {
  const made = new Map<string, { source: TokenRequestSource; connection: Connection }>();
  const close = async () => {
    for (const m of made.values()) m.source.stop();
    await Promise.all([...made.values()].map((m) => m.connection.close()));
  };
  // Eight accounts at a time: one after another, the ~30 controllers' accounts and tokens took a
  // minute on a loaded machine before any controller started.
  const queue = [...o.accounts];
  const one = async ([controller, account]: readonly [string, string]) => {
    try {
      await ensureServiceAccount(o.root, account);
      const source = await TokenRequestSource.start(o.root, CONTROLLER_ACCOUNT_NAMESPACE, account, o.logger);
      try {
        made.set(controller, { source, connection: await o.connect(source) });
      } catch (e) {
        source.stop();
        throw e;
      }
    } catch (e) {
      throw new OptionsError(`--use-service-account-credentials: cannot get a token for ${CONTROLLER_ACCOUNT_NAMESPACE}/${account} (controller ${controller}): ${(e as Error).message}`);
    }
  };
  // The first failure stops the others taking more; every worker ends before the made ones are closed.
  let failure: unknown;
  await Promise.all(
    Array.from({ length: Math.min(CREDENTIAL_CONCURRENCY, queue.length) }, async () => {
      for (let next = queue.shift(); next && failure === undefined; next = queue.shift()) {
        await one(next).catch((e: unknown) => {
          failure ??= e;
        });
      }
    }),
  );
  if (failure !== undefined) {
    await close();
    throw failure;
  }
  o.logger.info({ accounts: [...o.accounts].map(([, a]) => `${CONTROLLER_ACCOUNT_NAMESPACE}/${a}`) }, 'controllers use their own service-account credentials');
  return { clientFor: (name) => made.get(name)?.connection.client, close };
}

/** In process (svc up): each controller's client calls as its account's user (the account made if missing). */
export async function inProcessCredentials(o: {
  root: ApiClient;
  accounts: ReadonlyArray<readonly [controller: string, account: string]>;
  connect(user: ReturnType<typeof serviceAccountUser>): Connection | { client: ApiClient; close(): Promise<void> };
}): Promise<ControllerCredentials> {
  const made = new Map<string, { client: ApiClient; close(): Promise<void> }>();
  for (const [controller, account] of o.accounts) {
    try {
      made.set(controller, o.connect(serviceAccountUser(await ensureServiceAccount(o.root, account))));
    } catch (e) {
      await Promise.all([...made.values()].map((m) => m.close()));
      throw new OptionsError(`--use-service-account-credentials: cannot make ${CONTROLLER_ACCOUNT_NAMESPACE}/${account} (controller ${controller}): ${(e as Error).message}`);
    }
  }
  return { clientFor: (name) => made.get(name)?.client, close: async () => void (await Promise.all([...made.values()].map((m) => m.close()))) };
}

/**
 * A user's controller as its own service account `<namespace>/<controller name>`, bound to exactly
 * the ClusterRole its definition declares (src/runtime/controller-permissions.ts), named
 * `svc-controller:<account>`: made, or brought up to date (a restart on the same data after the
 * module changed). Returns the account's user. The test cluster and `svc up --controller-module`
 * under RBAC run users' controllers so.
 */
export async function bindDeclaredPermissions(root: ApiClient, def: ControllerDefinition<SvcObject>, namespace: string): Promise<{ username: string; uid?: string; groups: string[] }> {
  const name = controllerAccountName(def.name);
  const account = await ensureServiceAccount(root, name, namespace);
  const roleName = `svc-controller:${namespace}:${name}`;
  const { rules } = controllerClusterRole(roleName, [def.spec]);
  await createOrUpdate<ClusterRole>(root, resources.clusterroles, '', roleName, (role) => {
    role.rules = rules;
  });
  await createOrUpdate<ClusterRoleBinding>(root, resources.clusterrolebindings, '', roleName, (binding) => {
    binding.roleRef = { apiGroup: 'rbac.authorization.svc.io', kind: 'ClusterRole', name: roleName };
    binding.subjects = [{ kind: 'ServiceAccount', name, namespace }];
  });
  return serviceAccountUser(account);
}

/** A controller's name as a service account's (a DNS label: lower case, digits and '-'). */
export function controllerAccountName(controller: string): string {
  const n = controller.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 63).replace(/-+$/, '');
  return n || 'controller';
}

