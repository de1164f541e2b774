/**
 * The feature gates of the spec's "Versioning" section, shared by all four components, and the
 * `--feature-gates key=value,...` parser.
 *
 * The spec names cloud-specific CSI migration gates only as "provider A/B/C/D"; they are given
 * neutral concrete names here:
 *   CSIMigrationProviderA, CSIMigrationProviderC, CSIMigrationProviderD          (BETA, false)
 *   CSIMigrationProviderBDisk, CSIMigrationProviderBFile                         (ALPHA, false)
 *   CSIMigrationProviderAComplete, CSIMigrationProviderBDiskComplete,
 *   CSIMigrationProviderBFileComplete, CSIMigrationProviderCComplete,
 *   CSIMigrationProviderDComplete                                                (ALPHA, false)
 */
import { FlagValueError, parseBool } from './flag-types.js';

export type FeatureStage = 'ALPHA' | 'BETA';

export interface FeatureGateSpec {
  stage: FeatureStage;
  default: boolean;
}

const BETA_ON = [
  'APIListChunking', 'APIResponseCompression', 'AllowInsecureBackendProxy', 'AppArmor', 'CPUManager',
  'CRIContainerLogRotation', 'CSIInlineVolume', 'CSIMigration', 'DefaultIngressClass', 'DevicePlugins', 'DryRun',
  'DynamicSvcletConfig', 'EndpointSlice', 'EvenPodsSpread', 'ExpandCSIVolumes', 'ExpandInUsePersistentVolumes',
  'ExpandPersistentVolumes', 'SvcletPodResources', 'LocalStorageCapacityIsolation', 'PodDisruptionBudget',
  'PodOverhead', 'RemainingItemCount', 'RotateSvcletClientCertificate', 'RotateSvcletServerCertificate',
  'RunAsGroup', 'RuntimeClass', 'ServerSideApply', 'StartupProbe', 'StorageVersionHash', 'SupportNodePidsLimit',
  'SupportPodPidsLimit', 'Sysctls', 'TokenRequest', 'TokenRequestProjection', 'TopologyManager',
  'ValidateProxyRedirects', 'VolumeSnapshotDataSource',
];
const BETA_OFF = [
  'AllBeta', 'ExperimentalHostUserNamespaceDefaulting',
  'CSIMigrationProviderA', 'CSIMigrationProviderC', 'CSIMigrationProviderD',
];
const ALPHA_ON = ['LegacyNodeRoleBehavior'];
const ALPHA_OFF = [
  'AllAlpha', 'APIPriorityAndFairness', 'AnyVolumeDataSource', 'BalanceAttachedNodeVolumes',
  'BoundServiceAccountTokenVolume', 'ConfigurableFSGroupPolicy', 'CustomCPUCFSQuotaPeriod', 'DynamicAuditing',
  'EndpointSliceProxying', 'EphemeralContainers', 'HPAScaleToZero', 'HugePageStorageMediumSize', 'HyperVContainer',
  'IPv6DualStack', 'ImmutableEphemeralVolumes', 'LocalStorageCapacityIsolationFSQuotaMonitoring',
  'NodeDisruptionExclusion', 'NonPreemptingPriority', 'ProcMountType', 'QOSReserved', 'RemoveSelfLink',
  'ResourceLimitsPriorityFunction', 'SCTPSupport', 'SelectorIndex', 'ServiceAccountIssuerDiscovery',
  'ServiceAppProtocol', 'ServiceNodeExclusion', 'ServiceTopology', 'TTLAfterFinished', 'WinDSR', 'WinOverlay',
  'CSIMigrationProviderAComplete', 'CSIMigrationProviderBDiskComplete', 'CSIMigrationProviderBFileComplete',
  'CSIMigrationProviderCComplete', 'CSIMigrationProviderDComplete',
  'CSIMigrationProviderBDisk', 'CSIMigrationProviderBFile',
];

function table(): Record<string, FeatureGateSpec> {
  const out: Record<string, FeatureGateSpec> = {};
  for (const n of BETA_ON) out[n] = { stage: 'BETA', default: true };
  for (const n of BETA_OFF) out[n] = { stage: 'BETA', default: false };
  for (const n of ALPHA_ON) out[n] = { stage: 'ALPHA', default: true };
  for (const n of ALPHA_OFF) out[n] = { stage: 'ALPHA', default: false };
  return out;
}

/** Every known gate with its stage and default. */
export const FEATURE_GATES: Readonly<Record<string, FeatureGateSpec>> = Object.freeze(table());

export const ALL_ALPHA = 'AllAlpha';
export const ALL_BETA = 'AllBeta';

const FLAG = '--feature-gates';

/** Every gate at its default. */
export function defaultFeatureGates(): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const [name, spec] of Object.entries(FEATURE_GATES)) out[name] = spec.default;
  return out;
}

/**
 * Parses `A=true,B=false` (repeat the flag or separate with commas; later settings win) into a
 * value for every known gate. `AllAlpha=X` / `AllBeta=X` set every alpha / beta gate that is not
 * itself named to X. Unknown gates and non-boolean values are errors naming the gate.
 */
export function parseFeatureGates(value: string | string[]): Record<string, boolean> {
  const items = (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);
  const explicit = new Map<string, boolean>();
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq <= 0) {
      throw new FlagValueError(FLAG, item, `expected Gate=true|false pairs, e.g. ${FLAG}=APIPriorityAndFairness=true,AllAlpha=false`);
    }
    const name = item.slice(0, eq).trim();
    const raw = item.slice(eq + 1).trim();
    if (!Object.hasOwn(FEATURE_GATES, name)) {
      throw new FlagValueError(FLAG, item, `unrecognized feature gate: ${name} (known gates are listed by --help)`);
    }
    let on: boolean;
    try {
      on = parseBool(`${FLAG} ${name}`, raw);
    } catch {
      throw new FlagValueError(FLAG, item, `invalid value of ${name}: ${JSON.stringify(raw)}, expected true or false`);
    }
    explicit.set(name, on);
  }
  const gates = defaultFeatureGates();
  for (const [all, stage] of [[ALL_ALPHA, 'ALPHA'], [ALL_BETA, 'BETA']] as const) {
    const v = explicit.get(all);
    if (v === undefined) continue;
    for (const [name, spec] of Object.entries(FEATURE_GATES)) {
      if (spec.stage === stage && !explicit.has(name)) gates[name] = v;
    }
  }
  for (const [name, on] of explicit) gates[name] = on;
  return gates;
}

/** Help text listing every gate as `Name=true|false (STAGE - default=X)`. */
export function featureGatesHelp(): string {
  return Object.entries(FEATURE_GATES)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([n, s]) => `${n}=true|false (${s.stage} - default=${s.default})`)
    .join('\n');
}

/** Options that need a gate (spec "Versioning" 5). */
export const GATE_PREREQUISITES: readonly { option: string; gate: string; whenGateOff: 'ignored' | 'error' }[] = [
  // On by default while its gate is off by default: the option simply has no effect then.
  { option: '--enable-priority-and-fairness', gate: 'APIPriorityAndFairness', whenGateOff: 'ignored' },
  { option: '--audit-dynamic-configuration', gate: 'DynamicAuditing', whenGateOff: 'error' },
  { option: '--service-account-signing-key-file', gate: 'TokenRequest', whenGateOff: 'error' },
  { option: '--service-account-jwks-uri', gate: 'ServiceAccountIssuerDiscovery', whenGateOff: 'error' },
];

export interface GateCheck {
  /** Options used whose gate is off and that cannot work without it. */
  errors: string[];
  /** Options used whose gate is off and that are therefore without effect. */
  ignored: string[];
}

/**
 * Checks options that are in use (set to a non-empty value / true) against their gates.
 * `inUse` holds option names such as '--audit-dynamic-configuration'.
 */
export function checkGatePrerequisites(gates: Record<string, boolean>, inUse: ReadonlySet<string>): GateCheck {
  const out: GateCheck = { errors: [], ignored: [] };
  for (const p of GATE_PREREQUISITES) {
    if (!inUse.has(p.option) || gates[p.gate]) continue;
    const msg = `${p.option} needs the ${p.gate} feature gate (--feature-gates=${p.gate}=true)`;
    (p.whenGateOff === 'error' ? out.errors : out.ignored).push(msg);
  }
  return out;
}
