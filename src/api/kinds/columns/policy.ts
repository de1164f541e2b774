/**
 * Table columns of PodSecurityPolicies, as the established server's printer gives them
 * (`kubectl get psp`): the policy's main switches, no age column.
 */
import type { TableColumns } from '../../types.js';
import { asArray } from '../define.js';
import { at, column, NAME_COLUMN, name, text } from './cells.js';

const list = (v: unknown): string => asArray(v).map(text).join(',');

export const podSecurityPolicyColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('Priv', 'string', 'privileged determines if a pod can request to be run as privileged.'),
    column('Caps', 'string', 'allowedCapabilities is a list of capabilities that can be requested to add to the container.'),
    column('SELinux', 'string', 'seLinux is the strategy that will dictate the allowable labels that may be set.'),
    column('RunAsUser', 'string', 'runAsUser is the strategy that will dictate the allowable RunAsUser values that may be set.'),
    column('FsGroup', 'string', 'fsGroup is the strategy that will dictate what fs group is used by the SecurityContext.'),
    column('SupGroup', 'string', 'supplementalGroups is the strategy that will dictate what supplemental groups are used by the SecurityContext.'),
    column('ReadOnlyRootFs', 'string', 'readOnlyRootFilesystem when set to true will force containers to run with a read only root file system.'),
    column('Volumes', 'string', 'volumes is a white list of allowed volume plugins. Empty indicates that no volumes may be used. To allow all volumes you may use \'*\'.'),
  ],
  cells: (o) => [
    name(o),
    String(at(o, 'spec', 'privileged') === true),
    list(at(o, 'spec', 'allowedCapabilities')),
    text(at(o, 'spec', 'seLinux', 'rule')),
    text(at(o, 'spec', 'runAsUser', 'rule')),
    text(at(o, 'spec', 'fsGroup', 'rule')),
    text(at(o, 'spec', 'supplementalGroups', 'rule')),
    at(o, 'spec', 'readOnlyRootFilesystem') === true,
    list(at(o, 'spec', 'volumes')),
  ],
};
