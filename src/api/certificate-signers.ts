/**
 * CertificateSigningRequests' shared rules, one home for the API server (the kind's validation,
 * the Certificate* admission plugins), the csrapproving, csrsigning and csrcleaner controllers:
 *
 * - the built-in signer names, in our spelling (`svc.io/...` for `kubernetes.io/...`, `svc` for
 *   `kube`, `svclet` for `kubelet`); the established spellings are accepted on create and stored in
 *   ours (`canonicalSignerName`), as the server does with the `.k8s.io` groups;
 * - parsing `spec.request` (a PEM `CERTIFICATE REQUEST`, its self-signature checked);
 * - each built-in signer's rules about what it signs (the established validators, their messages);
 * - the approval conditions (`Approved`, `Denied`, `Failed`) as the established helpers read them;
 * - `spec.usages` to X.509 key usages and extended key usages.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { useWebCrypto } from './x509-signing.js';

export const CERTIFICATES_GROUP = 'certificates.svc.io';

/** Client certificates the API server accepts (`kubernetes.io/kube-apiserver-client`). */
export const SIGNER_APISERVER_CLIENT = 'svc.io/svc-apiserver-client';
/** Node agents' client certificates (`kubernetes.io/kube-apiserver-client-kubelet`): auto-approved by csrapproving. */
export const SIGNER_APISERVER_CLIENT_NODE = 'svc.io/svc-apiserver-client-svclet';
/** Node agents' serving certificates (`kubernetes.io/kubelet-serving`). */
export const SIGNER_NODE_SERVING = 'svc.io/svclet-serving';
/** Whatever the CA signs, as before signer names (`kubernetes.io/legacy-unknown`). */
export const SIGNER_LEGACY_UNKNOWN = 'svc.io/legacy-unknown';

export const BUILTIN_SIGNERS = [SIGNER_APISERVER_CLIENT, SIGNER_APISERVER_CLIENT_NODE, SIGNER_NODE_SERVING, SIGNER_LEGACY_UNKNOWN] as const;

const ESTABLISHED_SIGNERS: Readonly<Record<string, string>> = {
  'kubernetes.io/kube-apiserver-client': SIGNER_APISERVER_CLIENT,
  'kubernetes.io/kube-apiserver-client-kubelet': SIGNER_APISERVER_CLIENT_NODE,
  'kubernetes.io/kubelet-serving': SIGNER_NODE_SERVING,
  'kubernetes.io/legacy-unknown': SIGNER_LEGACY_UNKNOWN,
};

/** Our name of a built-in signer given in the established spelling; any other name unchanged. */
export function canonicalSignerName(name: string): string {
  return ESTABLISHED_SIGNERS[name] ?? name;
}

export const NODES_GROUP = 'system:nodes';
export const NODE_USER_PREFIX = 'system:node:';
export const MASTERS_GROUP = 'system:masters';

/** A `spec.request` that is not a valid PEM certificate request. */
export class CsrParseError extends Error {}

export interface ParsedCsr {
  readonly request: x509.Pkcs10CertificateRequest;
  readonly commonName: string;
  readonly organizations: readonly string[];
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
  readonly emailAddresses: readonly string[];
  readonly uris: readonly string[];
}

/** `spec.request` (base64 as on the wire, or the PEM text) parsed, its signature checked. */
export async function parseCsr(request: string | Buffer): Promise<ParsedCsr> {
  useWebCrypto();
  const pem = Buffer.isBuffer(request) ? request.toString('latin1') : request.includes('-----BEGIN') ? request : Buffer.from(request, 'base64').toString('latin1');
  const m = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/.exec(pem);
  if (!m) throw new CsrParseError('PEM block type must be CERTIFICATE REQUEST');
  if (m[1] !== 'CERTIFICATE REQUEST') throw new CsrParseError('PEM block type must be CERTIFICATE REQUEST');
  let req: x509.Pkcs10CertificateRequest;
  try {
    req = new x509.Pkcs10CertificateRequest(Buffer.from(m[2]!.replace(/\s+/g, ''), 'base64'));
  } catch (e) {
    throw new CsrParseError(`the certificate request does not parse: ${(e as Error).message}`);
  }
  let valid = false;
  try {
    valid = await req.verify();
  } catch (e) {
    throw new CsrParseError(`the certificate request's signature cannot be checked: ${(e as Error).message}`);
  }
  if (!valid) throw new CsrParseError("the certificate request's signature is not valid");
  const san = req.extensions.find((e): e is x509.SubjectAlternativeNameExtension => e instanceof x509.SubjectAlternativeNameExtension);
  const names: x509.JsonGeneralName[] = san?.names.toJSON() ?? [];
  const of = (t: string) => names.filter((n) => n.type === t).map((n) => n.value);
  return {
    request: req,
    commonName: req.subjectName.getField('CN')[0] ?? '',
    organizations: req.subjectName.getField('O'),
    dnsNames: of('dns'),
    ipAddresses: of('ip'),
    emailAddresses: of('email'),
    uris: of('url'),
  };
}

const sameSet = (a: ReadonlySet<string>, b: readonly string[]) => a.size === b.length && b.every((x) => a.has(x));

const NODE_CLIENT_USAGES = ['digital signature', 'key encipherment', 'client auth'];
const NODE_CLIENT_USAGES_NO_RSA = ['digital signature', 'client auth'];
const NODE_SERVING_USAGES = ['digital signature', 'key encipherment', 'server auth'];
const NODE_SERVING_USAGES_NO_RSA = ['digital signature', 'server auth'];
const CLIENT_USAGES = new Set(['digital signature', 'key encipherment', 'client auth']);

/** The node client certificate rules (`ValidateKubeletClientCSR`): why not, or undefined when it is one. */
export function nodeClientCsrError(csr: ParsedCsr, usages: readonly string[]): string | undefined {
  if (csr.organizations.length !== 1 || csr.organizations[0] !== NODES_GROUP) return `subject organization is not ${NODES_GROUP}`;
  if (!csr.commonName.startsWith(NODE_USER_PREFIX)) return `subject common name does not begin with ${NODE_USER_PREFIX}`;
  if (csr.dnsNames.length) return 'DNS subjectAltNames are not allowed';
  if (csr.emailAddresses.length) return 'Email subjectAltNames are not allowed';
  if (csr.ipAddresses.length) return 'IP subjectAltNames are not allowed';
  if (csr.uris.length) return 'URI subjectAltNames are not allowed';
  const set = new Set(usages);
  if (!sameSet(set, NODE_CLIENT_USAGES) && !sameSet(set, NODE_CLIENT_USAGES_NO_RSA)) return `usages did not match [${[...NODE_CLIENT_USAGES].sort().join(' ')}]`;
  return undefined;
}

/** The node serving certificate rules (`ValidateKubeletServingCSR`). */
export function nodeServingCsrError(csr: ParsedCsr, usages: readonly string[]): string | undefined {
  if (csr.organizations.length !== 1 || csr.organizations[0] !== NODES_GROUP) return `subject organization is not ${NODES_GROUP}`;
  if (!csr.commonName.startsWith(NODE_USER_PREFIX)) return `subject common name does not begin with ${NODE_USER_PREFIX}`;
  if (csr.dnsNames.length + csr.ipAddresses.length === 0) return 'DNS or IP subjectAltName is required';
  if (csr.emailAddresses.length) return 'Email subjectAltNames are not allowed';
  if (csr.uris.length) return 'URI subjectAltNames are not allowed';
  const set = new Set(usages);
  if (!sameSet(set, NODE_SERVING_USAGES) && !sameSet(set, NODE_SERVING_USAGES_NO_RSA)) return `usages did not match [${[...NODE_SERVING_USAGES].sort().join(' ')}]`;
  return undefined;
}

/** The API server client rules: only client usages, and `client auth` among them. */
export function apiServerClientCsrError(usages: readonly string[]): string | undefined {
  const bad = usages.filter((u) => !CLIENT_USAGES.has(u));
  if (bad.length) return `invalid usage for client certificate: ${bad[0]}`;
  if (!usages.includes('client auth')) return 'missing required usage for client certificate: client auth';
  return undefined;
}

/**
 * Whether a built-in signer handles `signerName`, and if so why it refuses this request (undefined:
 * it signs). `recognized: false` for any other signer (left to whoever implements it).
 */
export function builtinSignerDecision(signerName: string, csr: ParsedCsr, usages: readonly string[]): { recognized: false } | { recognized: true; error: string | undefined } {
  switch (signerName) {
    case SIGNER_APISERVER_CLIENT_NODE:
      return { recognized: true, error: nodeClientCsrError(csr, usages) };
    case SIGNER_APISERVER_CLIENT:
      return { recognized: true, error: apiServerClientCsrError(usages) };
    case SIGNER_NODE_SERVING:
      return { recognized: true, error: nodeServingCsrError(csr, usages) };
    case SIGNER_LEGACY_UNKNOWN:
      return { recognized: true, error: undefined };
    default:
      return { recognized: false };
  }
}

// ---- conditions ----

export interface CsrCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

interface CsrLike {
  status?: { conditions?: readonly CsrCondition[]; certificate?: string } | undefined;
}

const conditionsOf = (csr: CsrLike): readonly CsrCondition[] => csr.status?.conditions ?? [];
/** A condition counts when its status is True (or, as established for old objects, absent). */
const isTrue = (c: CsrCondition) => c.status === undefined || c.status === '' || c.status === 'True';

export function hasTrueCondition(csr: CsrLike, type: string): boolean {
  return conditionsOf(csr).some((c) => c.type === type && isTrue(c));
}

/** `[approved, denied]` as established (`GetCertApprovalCondition`). */
export function approvalState(csr: CsrLike): { approved: boolean; denied: boolean } {
  let approved = false;
  let denied = false;
  for (const c of conditionsOf(csr)) {
    if (c.type === 'Approved') approved = true;
    if (c.type === 'Denied') denied = true;
  }
  return { approved, denied };
}

/** Approved and not denied (`IsCertificateRequestApproved`). */
export function isApproved(csr: CsrLike): boolean {
  const { approved, denied } = approvalState(csr);
  return approved && !denied;
}

export function conditionOf(csr: CsrLike, type: string): CsrCondition | undefined {
  return conditionsOf(csr).find((c) => c.type === type);
}

// ---- usages ----

const KEY_USAGE_FLAGS: Readonly<Record<string, number>> = {
  signing: x509.KeyUsageFlags.digitalSignature,
  'digital signature': x509.KeyUsageFlags.digitalSignature,
  'content commitment': x509.KeyUsageFlags.nonRepudiation,
  'key encipherment': x509.KeyUsageFlags.keyEncipherment,
  'key agreement': x509.KeyUsageFlags.keyAgreement,
  'data encipherment': x509.KeyUsageFlags.dataEncipherment,
  'cert sign': x509.KeyUsageFlags.keyCertSign,
  'crl sign': x509.KeyUsageFlags.cRLSign,
  'encipher only': x509.KeyUsageFlags.encipherOnly,
  'decipher only': x509.KeyUsageFlags.decipherOnly,
};

const EXT_KEY_USAGES: Readonly<Record<string, string>> = {
  any: '2.5.29.37.0',
  'server auth': x509.ExtendedKeyUsage.serverAuth,
  'client auth': x509.ExtendedKeyUsage.clientAuth,
  'code signing': x509.ExtendedKeyUsage.codeSigning,
  'email protection': x509.ExtendedKeyUsage.emailProtection,
  's/mime': x509.ExtendedKeyUsage.emailProtection,
  'ipsec end system': '1.3.6.1.5.5.7.3.5',
  'ipsec tunnel': '1.3.6.1.5.5.7.3.6',
  'ipsec user': '1.3.6.1.5.5.7.3.7',
  timestamping: x509.ExtendedKeyUsage.timeStamping,
  'ocsp signing': x509.ExtendedKeyUsage.ocspSigning,
  'microsoft sgc': '1.3.6.1.4.1.311.10.3.3',
  'netscape sgc': '2.16.840.1.113730.4.1',
};

/** `spec.usages` as X.509 key usage flags and extended key usage OIDs (each once); unknown usages throw. */
export function x509Usages(usages: readonly string[]): { keyUsages: number; extendedKeyUsages: string[] } {
  let keyUsages = 0;
  const ext: string[] = [];
  for (const u of usages) {
    if (u in KEY_USAGE_FLAGS) keyUsages |= KEY_USAGE_FLAGS[u]!;
    else if (u in EXT_KEY_USAGES) {
      if (!ext.includes(EXT_KEY_USAGES[u]!)) ext.push(EXT_KEY_USAGES[u]!);
    } else throw new CsrParseError(`unknown usage: ${u}`);
  }
  return { keyUsages, extendedKeyUsages: ext };
}
