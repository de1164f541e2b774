/**
 * The one alias table: the established system's spellings of our names. Clients written for it
 * (kubectl, helm, the official client libraries) carry those spellings inside them; the server
 * accepts each as an alias of ours and answers in the spelling the request used. Objects are
 * stored once, under our canonical names (see docs/compatibility.md, whose table a test checks
 * against this one).
 *
 * Contract: `canonicalGroup` and `establishedGroup` are inverse on the table's rows and the
 * identity elsewhere (core, apps, batch, policy, autoscaling and custom groups are spelled alike).
 */

/** One row: our group name and the established system's name for the same group. */
export interface GroupAlias {
  canonical: string;
  established: string;
}

/** API groups (and the meta pseudo-group of Table and PartialObjectMetadata) with two spellings. */
export const GROUP_ALIASES: readonly GroupAlias[] = [
  { canonical: 'meta.svc', established: 'meta.k8s.io' },
  { canonical: 'admission.svc.io', established: 'admission.k8s.io' },
  { canonical: 'admissionregistration.svc.io', established: 'admissionregistration.k8s.io' },
  { canonical: 'apidiscovery.svc.io', established: 'apidiscovery.k8s.io' },
  { canonical: 'apiextensions.svc.io', established: 'apiextensions.k8s.io' },
  { canonical: 'apiregistration.svc.io', established: 'apiregistration.k8s.io' },
  { canonical: 'auditregistration.svc.io', established: 'auditregistration.k8s.io' },
  { canonical: 'authentication.svc.io', established: 'authentication.k8s.io' },
  { canonical: 'authorization.svc.io', established: 'authorization.k8s.io' },
  { canonical: 'certificates.svc.io', established: 'certificates.k8s.io' },
  { canonical: 'coordination.svc.io', established: 'coordination.k8s.io' },
  { canonical: 'discovery.svc.io', established: 'discovery.k8s.io' },
  { canonical: 'events.svc.io', established: 'events.k8s.io' },
  { canonical: 'flowcontrol.apiserver.svc.io', established: 'flowcontrol.apiserver.k8s.io' },
  { canonical: 'metrics.svc.io', established: 'metrics.k8s.io' },
  { canonical: 'networking.svc.io', established: 'networking.k8s.io' },
  { canonical: 'node.svc.io', established: 'node.k8s.io' },
  { canonical: 'rbac.authorization.svc.io', established: 'rbac.authorization.k8s.io' },
  { canonical: 'scheduling.svc.io', established: 'scheduling.k8s.io' },
  { canonical: 'settings.svc.io', established: 'settings.k8s.io' },
  { canonical: 'storage.svc.io', established: 'storage.k8s.io' },
];

/** Media types with two spellings (the Protobuf envelope is byte-for-byte the same). */
export const MEDIA_TYPE_ALIASES: readonly { canonical: string; established: string }[] = [
  { canonical: 'application/vnd.svc.protobuf', established: 'application/vnd.kubernetes.protobuf' },
];

/** Which spelling a request used; the response is written in the same one. */
export type Spelling = 'svc' | 'established';

const TO_CANONICAL = new Map(GROUP_ALIASES.map((a) => [a.established, a.canonical]));
const TO_ESTABLISHED = new Map(GROUP_ALIASES.map((a) => [a.canonical, a.established]));
const MEDIA_TO_CANONICAL = new Map(MEDIA_TYPE_ALIASES.map((a) => [a.established, a.canonical]));
const MEDIA_TO_ESTABLISHED = new Map(MEDIA_TYPE_ALIASES.map((a) => [a.canonical, a.established]));

/** Our name of a group (the argument itself when it has no other spelling). */
export function canonicalGroup(group: string): string {
  return TO_CANONICAL.get(group) ?? group;
}

/** The established name of one of our groups (the argument itself when it has no other spelling). */
export function establishedGroup(group: string): string {
  return TO_ESTABLISHED.get(group) ?? group;
}

/** Is this the established spelling of a group of ours? */
export function isEstablishedGroup(group: string): boolean {
  return TO_CANONICAL.has(group);
}

/** `group/version` or `version` in our spelling. */
export function canonicalApiVersion(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  if (slash < 0) return apiVersion;
  const group = apiVersion.slice(0, slash);
  const canonical = TO_CANONICAL.get(group);
  return canonical === undefined ? apiVersion : canonical + apiVersion.slice(slash);
}

/** `group/version` in the spelling a request used. */
export function spelledApiVersion(apiVersion: string, spelling: Spelling): string {
  if (spelling === 'svc') return apiVersion;
  const slash = apiVersion.indexOf('/');
  if (slash < 0) return apiVersion;
  const established = TO_ESTABLISHED.get(apiVersion.slice(0, slash));
  return established === undefined ? apiVersion : established + apiVersion.slice(slash);
}

/** Our spelling of a media type (lower case `type/subtype`). */
export function canonicalMediaType(mediaType: string): string {
  return MEDIA_TO_CANONICAL.get(mediaType) ?? mediaType;
}

export function isEstablishedMediaType(mediaType: string): boolean {
  return MEDIA_TO_CANONICAL.has(mediaType);
}

/** A media type (or a whole Content-Type value starting with one) in the spelling a request used. */
export function spelledMediaType(contentType: string, spelling: Spelling): string {
  if (spelling === 'svc') return contentType;
  const semi = contentType.indexOf(';');
  const mt = semi < 0 ? contentType : contentType.slice(0, semi);
  const established = MEDIA_TO_ESTABLISHED.get(mt);
  let out = established === undefined ? contentType : established + (semi < 0 ? '' : contentType.slice(semi));
  // Table's `g=` parameter names the meta group.
  for (const a of GROUP_ALIASES) if (out.includes(`g=${a.canonical}`)) out = out.replace(`g=${a.canonical}`, `g=${a.established}`);
  return out;
}

/**
 * Rewrites a decoded request body to our spelling, in place: every `apiVersion` naming an aliased
 * group (the object's own, owner references, list items) and every `apiGroup` naming one (role
 * references, subjects). Returns whether anything was rewritten (the request then used the
 * established spelling). Iterative: bodies are already held to the nesting limit, but a stack of
 * our own keeps this walk off the call stack whatever it is given.
 */
export function canonicalizeBody(value: unknown): boolean {
  let changed = false;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (const x of v) if (x !== null && typeof x === 'object') stack.push(x);
      continue;
    }
    const o = v as Record<string, unknown>;
    for (const key of Object.keys(o)) {
      const x = o[key];
      if (typeof x === 'string') {
        if (key === 'apiVersion') {
          const c = canonicalApiVersion(x);
          if (c !== x) {
            o[key] = c;
            changed = true;
          }
        } else if (key === 'apiGroup' && TO_CANONICAL.has(x)) {
          o[key] = TO_CANONICAL.get(x);
          changed = true;
        }
      } else if (x !== null && typeof x === 'object') {
        stack.push(x);
      }
    }
  }
  return changed;
}

/** Quick test on raw body bytes (JSON, YAML or Protobuf): could canonicalizeBody change anything? */
export function mayHoldEstablishedSpelling(bytes: Buffer): boolean {
  return bytes.includes('.k8s.io');
}

// JSON text: the patterns include the key and its quotes, which JSON escaping keeps out of string
// values, so only keys named apiVersion / apiGroup are ever rewritten.
const JSON_REWRITES: readonly [string, string][] = GROUP_ALIASES.flatMap((a) => [
  [`"apiVersion":"${a.canonical}/`, `"apiVersion":"${a.established}/`],
  [`"apiGroup":"${a.canonical}"`, `"apiGroup":"${a.established}"`],
  [`"groupVersion":"${a.canonical}/`, `"groupVersion":"${a.established}/`],
]);

/**
 * Compact JSON text (as the server writes it) in the established spelling. Cheap when there is
 * nothing to rewrite: one substring test per aliased group.
 */
export function establishedJsonText(text: string): string {
  if (!text.includes('.svc')) return text;
  let out = text;
  for (const [from, to] of JSON_REWRITES) if (out.includes(from)) out = out.split(from).join(to);
  return out;
}
