/**
 * The delegated authentication and authorization flags of the scheduler, controller manager and
 * cloud controller manager (spec "Authentication": scheduler, controller manager, cloud controller
 * manager). Parsed and checked now, not yet effective: every request to these daemons' ports is
 * anonymous and allowed until the security work lands; --help says so, and setting one to anything
 * but its default is refused at start (a security option never fails open).
 */
import type { FlagSpec } from './option-table.js';

const NOT_YET = { honoured: false } as const;
const NOTE = ' (Not built yet: refused unless left at its default; requests are not authenticated until the security work lands.)';

export function delegatedAuthFlags(component: 'scheduler' | 'controller-manager' | 'cloud-controller-manager'): FlagSpec[] {
  const rows: FlagSpec[] = [
    { flags: '--authentication-svcconfig', type: 'string', help: 'Client-config file with rights to create TokenReviews. Optional. If empty, all token requests are anonymous and no client CA is looked up.' },
    { flags: '--authentication-skip-lookup', type: 'bool', help: 'If false, the file above is used to look up missing authentication configuration.' },
    {
      flags: '--authentication-tolerate-lookup-failure',
      type: 'bool',
      ...(component === 'scheduler' ? { default: true } : {}),
      help: 'If true, a lookup failure is not fatal, and requests may be treated as anonymous.',
    },
    { flags: '--authentication-token-webhook-cache-ttl', type: 'duration', default: 10_000, help: 'Cache time of webhook token responses.' },
    { flags: '--authorization-svcconfig', type: 'string', help: 'Client-config file with rights to create SubjectAccessReviews. If empty, all requests not skipped are forbidden.' },
    { flags: '--authorization-always-allow-paths', type: 'stringSlice', default: ['/healthz'], defaultText: '[/healthz]', help: 'Paths authorized without contacting the core server.' },
    { flags: '--authorization-webhook-cache-authorized-ttl', type: 'duration', default: 10_000, help: 'Cache of allow answers.' },
    { flags: '--authorization-webhook-cache-unauthorized-ttl', type: 'duration', default: 10_000, help: 'Cache of deny answers.' },
    { flags: '--client-ca-file', type: 'string', help: 'A client certificate signed by one of these authorities authenticates as its CommonName.' },
    { flags: '--requestheader-client-ca-file', type: 'string', help: 'CA bundle verifying client certs before header-supplied usernames are trusted.' },
    { flags: '--requestheader-allowed-names', type: 'stringSlice', help: 'Allowed client cert common names. Empty allows any cert the CA validates.' },
    { flags: '--requestheader-username-headers', type: 'stringSlice', default: ['x-remote-user'], defaultText: '[x-remote-user]', help: 'Headers inspected for user name.' },
    { flags: '--requestheader-group-headers', type: 'stringSlice', default: ['x-remote-group'], defaultText: '[x-remote-group]', help: 'Headers inspected for groups.' },
    { flags: '--requestheader-extra-headers-prefix', type: 'stringSlice', default: ['x-remote-extra-'], defaultText: '[x-remote-extra-]', help: 'Header prefixes inspected for extra attributes.' },
  ];
  return rows.map((r) => ({ ...r, ...NOT_YET, help: r.help + NOTE }));
}
