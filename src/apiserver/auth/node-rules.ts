/**
 * What every node may do, whichever node it is: the established `system:node` rules (the
 * bootstrap policy's NodeRules) with our group names. The Node authorizer (./node-authorizer.ts)
 * allows a node's request these rules match, after its own per-object checks for the kinds it
 * subdivides; the NodeRestriction admission plugin then narrows the writes to the node's own
 * objects. RBAC's `system:node` ClusterRole holds the same rules (one list: import this one).
 */

export interface NodePolicyRule {
  verbs: readonly string[];
  apiGroups: readonly string[];
  /** `resource` or `resource/subresource`. */
  resources: readonly string[];
}

const READ = ['get', 'list', 'watch'] as const;
const READ_WRITE = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'] as const;

export const NODE_RULES: readonly NodePolicyRule[] = Object.freeze([
  // Checking API access: these creates change nothing.
  { verbs: ['create'], apiGroups: ['authentication.svc.io'], resources: ['tokenreviews'] },
  { verbs: ['create'], apiGroups: ['authorization.svc.io'], resources: ['subjectaccessreviews', 'localsubjectaccessreviews'] },
  // Services, for the environment variables of pods.
  { verbs: READ, apiGroups: [''], resources: ['services'] },
  // Registering and reporting the node (NodeRestriction: only its own).
  { verbs: ['create', 'get', 'list', 'watch'], apiGroups: [''], resources: ['nodes'] },
  { verbs: ['update', 'patch'], apiGroups: [''], resources: ['nodes/status'] },
  { verbs: ['update', 'patch'], apiGroups: [''], resources: ['nodes'] },
  { verbs: ['create', 'update', 'patch'], apiGroups: [''], resources: ['events'] },
  { verbs: READ, apiGroups: [''], resources: ['pods'] },
  // Mirror pods (NodeRestriction: only bound to itself), the status of its pods, evictions.
  { verbs: ['create', 'delete'], apiGroups: [''], resources: ['pods'] },
  { verbs: ['update', 'patch'], apiGroups: [''], resources: ['pods/status'] },
  { verbs: ['create'], apiGroups: [''], resources: ['pods/eviction'] },
  // Referenced objects (the Node authorizer narrows these to what its pods reference).
  { verbs: READ, apiGroups: [''], resources: ['secrets', 'configmaps'] },
  { verbs: ['get'], apiGroups: [''], resources: ['persistentvolumeclaims', 'persistentvolumes'] },
  { verbs: ['get'], apiGroups: [''], resources: ['endpoints'] },
  { verbs: ['create', 'get', 'list', 'watch'], apiGroups: ['certificates.svc.io'], resources: ['certificatesigningrequests'] },
  { verbs: ['get', 'create', 'update', 'patch', 'delete'], apiGroups: ['coordination.svc.io'], resources: ['leases'] },
  { verbs: ['get'], apiGroups: ['storage.svc.io'], resources: ['volumeattachments'] },
  { verbs: ['create'], apiGroups: [''], resources: ['serviceaccounts/token'] },
  { verbs: ['get', 'update', 'patch'], apiGroups: [''], resources: ['persistentvolumeclaims/status'] },
  { verbs: READ, apiGroups: ['storage.svc.io'], resources: ['csidrivers'] },
  { verbs: ['get', 'create', 'update', 'patch', 'delete'], apiGroups: ['storage.svc.io'], resources: ['csinodes'] },
  { verbs: READ, apiGroups: ['node.svc.io'], resources: ['runtimeclasses'] },
  { verbs: ['get'], apiGroups: ['resource.svc.io'], resources: ['resourceclaims'] },
  { verbs: READ_WRITE, apiGroups: ['resource.svc.io'], resources: ['resourceslices'] },
]);

/** Does one of `rules` allow `verb` on `group`'s `resource[/subresource]`? (RBAC's matching, no names.) */
export function nodeRulesAllow(rules: readonly NodePolicyRule[], verb: string, group: string, resource: string, subresource: string): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  return rules.some((r) => r.verbs.includes(verb) && r.apiGroups.includes(group) && r.resources.includes(combined));
}
