/**
 * A leader-election lock on an Endpoints or ConfigMap object: the record is JSON in the annotation
 * `control-plane.alpha.svc.io/leader` (the older lock style, kept for compatibility).
 */
import type { SvcObject } from '../../api/types.js';
import type { ApiClient, ResourceRef } from '../../client/types.js';
import { apiVersionOf } from '../resource-refs.js';
import { rfc3339 } from '../../api/time.js';
import { isNotFound, LEADER_ANNOTATION, normaliseRecord, type LeaderElectionRecord, type ObservedRecord, type ResourceLock } from './record.js';

/** The annotation's JSON: times with whole seconds, as metav1.Time marshals them. */
function annotationValue(r: LeaderElectionRecord): string {
  const secs = (t: string) => (t ? rfc3339(Date.parse(t)) : t);
  return JSON.stringify({ ...r, acquireTime: secs(r.acquireTime), renewTime: secs(r.renewTime) });
}

export class AnnotationLock implements ResourceLock {
  private object: SvcObject | undefined;
  constructor(
    private readonly client: ApiClient,
    /** ENDPOINTS or CONFIGMAPS. */
    readonly ref: ResourceRef,
    readonly namespace: string,
    readonly name: string,
    readonly identity: string,
  ) {}

  describe(): string {
    return `${this.namespace}/${this.name}`;
  }

  async get(): Promise<ObservedRecord | undefined> {
    try {
      this.object = await this.client.get(this.ref, this.namespace, this.name);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
    const raw = this.object.metadata.annotations?.[LEADER_ANNOTATION] ?? '';
    let parsed: Partial<LeaderElectionRecord> = {};
    try {
      parsed = raw ? (JSON.parse(raw) as Partial<LeaderElectionRecord>) : {};
    } catch {
      // A mangled annotation reads as "nobody holds it"; the next write repairs it.
    }
    return { record: normaliseRecord(parsed), raw };
  }

  async create(record: LeaderElectionRecord): Promise<void> {
    this.object = await this.client.create(this.ref, this.namespace, {
      apiVersion: apiVersionOf(this.ref),
      kind: this.ref.kind,
      metadata: { name: this.name, namespace: this.namespace, annotations: { [LEADER_ANNOTATION]: annotationValue(record) } },
    });
  }

  async update(record: LeaderElectionRecord): Promise<void> {
    if (!this.object) throw new Error(`${this.ref.resource} ${this.describe()} not read yet: get or create it before updating`);
    const metadata = { ...this.object.metadata, annotations: { ...this.object.metadata.annotations, [LEADER_ANNOTATION]: annotationValue(record) } };
    this.object = await this.client.update(this.ref, this.namespace, { ...this.object, metadata });
  }
}
