// The alias table: the established system's spellings of groups and media types map to ours and
// back; request bodies are rewritten to our spelling (apiVersion, apiGroup, anywhere in the body);
// JSON text is rewritten to theirs only in keys, never in string values; Accept clauses in their
// spelling select the same representations and get the Content-Type back in their spelling.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseBoolWord } from '../../src/api/booleans.js';
import {
  canonicalApiVersion,
  canonicalGroup,
  canonicalizeBody,
  establishedGroup,
  establishedJsonText,
  GROUP_ALIASES,
  MEDIA_TYPE_ALIASES,
  spelledApiVersion,
} from '../../src/api/established-spelling.js';
import { ROOT } from '../helpers/apiserver.js';
import { JSON_REPRESENTATION, negotiateRequest, negotiateResponse, PROTOBUF_REPRESENTATION, TABLE_REPRESENTATION, TABLE_V1_REPRESENTATION } from '../../src/codec/negotiation.js';

test('each row maps both ways; groups spelled alike map to themselves', () => {
  for (const { canonical, established } of GROUP_ALIASES) {
    assert.is(canonicalGroup(established), canonical);
    assert.is(establishedGroup(canonical), established);
  }
  for (const g of ['', 'apps', 'batch', 'policy', 'autoscaling', 'stable.example.com']) {
    assert.is(canonicalGroup(g), g);
    assert.is(establishedGroup(g), g);
  }
  assert.is(canonicalApiVersion('rbac.authorization.k8s.io/v1'), 'rbac.authorization.svc.io/v1');
  assert.is(canonicalApiVersion('v1'), 'v1');
  assert.is(canonicalApiVersion('apps/v1'), 'apps/v1');
  assert.is(spelledApiVersion('coordination.svc.io/v1', 'established'), 'coordination.k8s.io/v1');
  assert.is(spelledApiVersion('coordination.svc.io/v1', 'svc'), 'coordination.svc.io/v1');
});

test('a body is rewritten to our spelling: apiVersion and apiGroup at any depth, nothing else', () => {
  const body = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'x', ownerReferences: [{ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: 'l', uid: 'u' }], annotations: { note: 'rbac.authorization.k8s.io' } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'devs' }],
    rules: [{ apiGroups: ['coordination.k8s.io'] }],
  };
  assert.ok(canonicalizeBody(body));
  assert.is(body.apiVersion, 'rbac.authorization.svc.io/v1');
  assert.is(body.metadata.ownerReferences[0]!.apiVersion, 'coordination.svc.io/v1');
  assert.is(body.roleRef.apiGroup, 'rbac.authorization.svc.io');
  assert.is(body.subjects[0]!.apiGroup, 'rbac.authorization.svc.io');
  // Values that are not a group reference are the user's: left alone.
  assert.is(body.metadata.annotations.note, 'rbac.authorization.k8s.io');
  assert.equal(body.rules[0]!.apiGroups, ['coordination.k8s.io']);
  assert.not.ok(canonicalizeBody({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'coordination.k8s.io/v1' } }));
});

test('JSON text is rewritten in keys only: a string value that looks like a key stays as it is', () => {
  const obj = {
    apiVersion: 'coordination.svc.io/v1',
    kind: 'Lease',
    metadata: { annotations: { trap: '"apiVersion":"coordination.svc.io/v1"' } },
    roleRef: { apiGroup: 'rbac.authorization.svc.io' },
  };
  const out = JSON.parse(establishedJsonText(JSON.stringify(obj)));
  assert.is(out.apiVersion, 'coordination.k8s.io/v1');
  assert.is(out.roleRef.apiGroup, 'rbac.authorization.k8s.io');
  assert.is(out.metadata.annotations.trap, '"apiVersion":"coordination.svc.io/v1"');
  const plain = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap' });
  assert.is(establishedJsonText(plain), plain);
});

test('Accept in the established spelling: the v1 Table of meta.k8s.io, with the Content-Type echoed in that spelling', () => {
  const offered = [JSON_REPRESENTATION, TABLE_V1_REPRESENTATION, TABLE_REPRESENTATION, PROTOBUF_REPRESENTATION];
  const kubectlTable = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
  const t = negotiateResponse(kubectlTable, offered);
  assert.is(t.representation, 'table');
  assert.is(t.params['v'], 'v1');
  assert.is(t.spelling, 'established');
  assert.is(t.contentType, 'application/json;as=Table;g=meta.k8s.io;v=v1');
  const ours = negotiateResponse('application/json;as=Table;g=meta.svc;v=v1beta1', offered);
  assert.is(ours.spelling, 'svc');
  assert.is(ours.contentType, 'application/json;as=Table;g=meta.svc;v=v1beta1');
  const pb = negotiateResponse('application/vnd.kubernetes.protobuf, application/json', offered);
  assert.is(pb.representation, 'protobuf');
  assert.is(pb.contentType, 'application/vnd.kubernetes.protobuf');
  assert.is(negotiateResponse('application/json', offered).spelling, 'svc');
  assert.is(negotiateRequest('application/vnd.kubernetes.protobuf', ['application/json', 'application/vnd.svc.protobuf']), 'application/vnd.svc.protobuf');
});

test('boolean words as the established server reads them', () => {
  for (const w of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.is(parseBoolWord(w), true);
  for (const w of ['0', 'f', 'F', 'FALSE', 'false', 'False']) assert.is(parseBoolWord(w), false);
  for (const w of ['', 'yes', 'tRUE', '2']) assert.is(parseBoolWord(w), undefined);
});

test('docs/compatibility.md lists exactly this table', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'compatibility.md'), 'utf8');
  const block = /<!-- alias-table:begin -->\n([\s\S]*?)<!-- alias-table:end -->/.exec(doc)?.[1] ?? '';
  const rows = block.trim().split('\n').map((l) => l.split('|').map((c) => c.trim().replace(/`/g, '')).filter(Boolean));
  assert.equal(rows, [...GROUP_ALIASES, ...MEDIA_TYPE_ALIASES].map((a) => [a.canonical, a.established]));
});

test.run();
