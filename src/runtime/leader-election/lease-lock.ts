/** A leader-election lock on a Lease (coordination.svc.io/v1): the record is the Lease's spec. */
import type { SvcObject } from '../../api/types.js';
import type { ApiClient } from '../../client/types.js';
import { LEASES } from '../resource-refs.js';
import { isNotFound, normaliseRecord, type LeaderElectionRecord, type ObservedRecord, type ResourceLock } from './record.js';

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

function toSpec(r: LeaderElectionRecord): LeaseSpec {
  // Empty times are left out: the Lease schema only takes RFC 3339 values.
  return {
    holderIdentity: r.holderIdentity,
    leaseDurationSeconds: r.leaseDurationSeconds,
    ...(r.acquireTime ? { acquireTime: r.acquireTime } : {}),
    ...(r.renewTime ? { renewTime: r.renewTime } : {}),
    leaseTransitions: r.leaderTransitions,
  };
}

export class LeaseLock implements ResourceLock {
  private lease: SvcObject | undefined;
  constructor(
    private readonly client: ApiClient,
    readonly namespace: string,
    readonly name: string,
    readonly identity: string,
  ) {}

  describe(): string {
    return `${this.namespace}/${this.name}`;
  }

  async get(): Promise<ObservedRecord | undefined> {
    try {
      this.lease = await this.client.get(LEASES, this.namespace, this.name);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
    const spec = (this.lease['spec'] ?? {}) as LeaseSpec;
    const record = normaliseRecord({ ...spec, leaderTransitions: spec.leaseTransitions });
    return { record, raw: JSON.stringify(record) };
  }

  async create(record: LeaderElectionRecord): Promise<void> {
    this.lease = await this.client.create(LEASES, this.namespace, {
      apiVersion: 'coordination.svc.io/v1',
      kind: 'Lease',
      metadata: { name: this.name, namespace: this.namespace },
      spec: toSpec(record),
    });
  }

  async update(record: LeaderElectionRecord): Promise<void> {
    if (!this.lease) throw new Error(`lease ${this.describe()} not read yet: get or create it before updating`);
    this.lease = await this.client.update(LEASES, this.namespace, { ...this.lease, spec: toSpec(record) });
  }
}
