/**
 * --cloud-provider and --cloud-config, shared by the controller manager, the cloud controller
 * manager and `svc up`: the rows and their resolution into a provider (src/cloud/registry.ts). An
 * unknown provider, a provider without the file it needs, or a file that is not the provider's
 * format stop the start with a message naming the flag.
 */
import { CLOUD_PROVIDERS, CloudProviderError, cloudProviderFromFlags, EXTERNAL_CLOUD_PROVIDER } from '../cloud/registry.js';
import type { CloudProvider } from '../cloud/provider.js';
import { OptionsError } from './common-options.js';
import type { FlagSpec, FlagValues } from './option-table.js';

export function cloudProviderFlags(): FlagSpec[] {
  return [
    {
      flags: '--cloud-provider',
      type: 'string',
      help: `Cloud provider. Empty means none. This version has: ${CLOUD_PROVIDERS.map((p) => `${p.name} (${p.summary})`).join('; ')}; "${EXTERNAL_CLOUD_PROVIDER}": a cloud-controller-manager runs the cloud controllers.`,
    },
    { flags: '--cloud-config', type: 'string', help: 'Cloud provider config file. Empty means none.' },
  ];
}

/** The provider the flags name (undefined: none or external). */
export function resolveCloudProvider(f: FlagValues, extra: { cloudyLbSourceCidrs?: readonly string[] } = {}): CloudProvider | undefined {
  try {
    return cloudProviderFromFlags({ provider: f.string('--cloud-provider'), cloudConfig: f.string('--cloud-config'), ...extra });
  } catch (e) {
    if (e instanceof CloudProviderError) throw new OptionsError(e.message);
    throw e;
  }
}
