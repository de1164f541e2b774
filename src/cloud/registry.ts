/**
 * The one list of cloud providers (--cloud-provider): each name and how to make it from
 * --cloud-config and its own flags. `external` is not a provider: on the controller manager it says
 * the cloud controllers run in a cloud-controller-manager instead, as established; empty means none.
 * To add a real cloud: implement ./provider.ts in one module and add its row here.
 */
import { Cloudy, CLOUDY } from './cloudy/index.js';
import { CloudyConfigError } from './cloudy/state.js';
import type { CloudProvider } from './provider.js';

export const EXTERNAL_CLOUD_PROVIDER = 'external';

export interface CloudProviderFlags {
  /** --cloud-provider. */
  provider: string;
  /** --cloud-config ('' when not given). */
  cloudConfig: string;
  /** --cloud-provider-cloudy-lb-src-cidrs (cloudy only). */
  cloudyLbSourceCidrs?: readonly string[];
}

interface ProviderRow {
  name: string;
  summary: string;
  create(flags: CloudProviderFlags): CloudProvider;
}

export const CLOUD_PROVIDERS: readonly ProviderRow[] = [
  {
    name: CLOUDY,
    summary: 'the built-in simulated cloud; its settings and state live in the --cloud-config file (docs/cloud.md)',
    create(flags) {
      if (!flags.cloudConfig) throw new CloudProviderError(`--cloud-provider=${CLOUDY} needs --cloud-config: the file the simulated cloud keeps its settings and state in (created if missing)`);
      try {
        return new Cloudy({ file: flags.cloudConfig, ...(flags.cloudyLbSourceCidrs ? { lbSourceCidrs: flags.cloudyLbSourceCidrs } : {}) });
      } catch (e) {
        if (e instanceof CloudyConfigError) throw new CloudProviderError(e.message);
        throw e;
      }
    },
  },
];

export class CloudProviderError extends Error {}

/** The provider the flags name; undefined for none ('') and for `external`. Throws CloudProviderError naming the flag. */
export function cloudProviderFromFlags(flags: CloudProviderFlags): CloudProvider | undefined {
  if (flags.provider === '' || flags.provider === EXTERNAL_CLOUD_PROVIDER) {
    if (flags.cloudConfig) throw new CloudProviderError(`--cloud-config is set but --cloud-provider is ${flags.provider === '' ? 'empty' : EXTERNAL_CLOUD_PROVIDER}: the file would not be read`);
    return undefined;
  }
  const row = CLOUD_PROVIDERS.find((p) => p.name === flags.provider);
  if (!row) {
    throw new CloudProviderError(`--cloud-provider: unknown cloud provider "${flags.provider}"; this version has: ${CLOUD_PROVIDERS.map((p) => p.name).join(', ')} (or "${EXTERNAL_CLOUD_PROVIDER}" when a cloud-controller-manager runs the cloud controllers)`);
  }
  return row.create(flags);
}
