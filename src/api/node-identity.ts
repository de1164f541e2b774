/**
 * The names that make a node agent's identity, shared by the API server (the Node authorizer and
 * the NodeRestriction admission plugin) and the node agents (`svc nodes`), as established:
 * a node is the user `system:node:<name>` in the group `system:nodes`, and keeps its heartbeat
 * Lease, named after it, in `svc-node-lease` (the established kube-node-lease).
 */

export const NODES_GROUP = 'system:nodes';
export const NODE_USER_PREFIX = 'system:node:';
export const NODE_LEASE_NAMESPACE = 'svc-node-lease';

/** The user name of node `name`. */
export function nodeUserName(name: string): string {
  return `${NODE_USER_PREFIX}${name}`;
}

/**
 * The node a user is: `{ isNode: false }` unless the name has the prefix and the groups include
 * `system:nodes`; `name` is empty for the bare prefix (a node that cannot be identified).
 */
export function nodeIdentity(user: { username: string; groups: readonly string[] }): { isNode: boolean; name: string } {
  if (!user.username.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return { isNode: false, name: '' };
  return { isNode: true, name: user.username.slice(NODE_USER_PREFIX.length) };
}
