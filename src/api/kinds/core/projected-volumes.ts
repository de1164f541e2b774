/**
 * Projected volumes of a pod spec (`volumes[i].projected`): defaults and validation, the
 * established rules (the TokenRequestProjection feature):
 *
 * - each entry of `sources` names exactly one of secret, configMap, downwardAPI,
 *   serviceAccountToken (`may not specify more than 1 volume type`);
 * - serviceAccountToken: `expirationSeconds` defaults to 3600, at least 600 (`may not specify a
 *   duration less than 10 minutes`) and at most 2^32 (`may not specify a duration larger than 2^32
 *   seconds`); `path` required (the error names `projected.path`, as established); `audience` free text (empty: the API server's audiences);
 * - secret and configMap: `name` required; every item a key and a path;
 * - every file path relative, without `..` steps, and no two files at one path (`conflicting
 *   duplicate paths`);
 * - `defaultMode` (defaults to 0644) and item modes within 0..0777.
 * A failure is a 422 naming the field (pods, and every pod template).
 */
import type { FieldError } from '../../status.js';
import { fieldForbidden, invalidValue, required } from '../../validation/field-errors.js';
import { asArray, asRecord, setDefault } from '../define.js';

export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;
const MIN_TOKEN_EXPIRATION_SECONDS = 600;
const MAX_TOKEN_EXPIRATION_SECONDS = 2 ** 32;
const DEFAULT_MODE = 0o644;
const SOURCE_TYPES = ['secret', 'configMap', 'downwardAPI', 'serviceAccountToken'] as const;

const present = (v: unknown): boolean => v !== undefined && v !== null;

/** Fills the established defaults of one projected volume source. */
export function defaultProjectedVolume(projected: Record<string, unknown>): void {
  setDefault(projected, 'defaultMode', DEFAULT_MODE);
  for (const raw of asArray(projected['sources'])) {
    const token = asRecord(asRecord(raw)['serviceAccountToken']);
    if (present(asRecord(raw)['serviceAccountToken'])) setDefault(token, 'expirationSeconds', DEFAULT_TOKEN_EXPIRATION_SECONDS);
  }
}

/** The established rules of a path inside a volume (validateLocalNonReservedPath). */
export function validateVolumePath(path: string, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (path.startsWith('/')) errs.push(invalidValue(field, path, 'must be a relative path'));
  if (path.split('/').includes('..')) errs.push(invalidValue(field, path, "must not contain '..'"));
  if (path.startsWith('..') && !path.startsWith('../')) errs.push(invalidValue(field, path, "must not start with '..'"));
  return errs;
}

function validateMode(mode: unknown, field: string): FieldError[] {
  if (!present(mode)) return [];
  if (typeof mode !== 'number' || !Number.isInteger(mode) || mode < 0 || mode > 0o777) {
    return [invalidValue(field, mode, 'must be a number between 0 and 0777 (octal), both inclusive')];
  }
  return [];
}

/** Validates `volumes[i].projected` at path `p` (e.g. `spec.volumes[0].projected`). */
export function validateProjectedVolume(projectedRaw: unknown, p: string): FieldError[] {
  const projected = asRecord(projectedRaw);
  const errs: FieldError[] = [...validateMode(projected['defaultMode'], `${p}.defaultMode`)];
  const paths = new Set<string>();
  const claim = (path: string, field: string, value: unknown): void => {
    if (!path) return;
    if (paths.has(path)) errs.push(invalidValue(field, value, 'conflicting duplicate paths'));
    paths.add(path);
  };
  asArray(projected['sources']).forEach((raw, i) => {
    const src = asRecord(raw);
    const sp = `${p}.sources[${i}]`;
    const kinds = SOURCE_TYPES.filter((k) => present(src[k]));
    if (kinds.length > 1) errs.push(fieldForbidden(sp, 'may not specify more than 1 volume type'));
    for (const kind of ['secret', 'configMap'] as const) {
      if (!present(src[kind])) continue;
      const s = asRecord(src[kind]);
      const kp = `${sp}.${kind}`;
      if (typeof s['name'] !== 'string' || s['name'] === '') errs.push(required(`${kp}.name`));
      asArray(s['items']).forEach((itemRaw, j) => {
        const item = asRecord(itemRaw);
        const ip = `${kp}.items[${j}]`;
        if (typeof item['key'] !== 'string' || item['key'] === '') errs.push(required(`${ip}.key`));
        const path = typeof item['path'] === 'string' ? item['path'] : '';
        if (!path) errs.push(required(`${ip}.path`));
        else errs.push(...validateVolumePath(path, `${ip}.path`));
        errs.push(...validateMode(item['mode'], `${ip}.mode`));
        claim(path, p, s['name']);
      });
    }
    if (present(src['downwardAPI'])) {
      asArray(asRecord(src['downwardAPI'])['items']).forEach((itemRaw, j) => {
        const item = asRecord(itemRaw);
        const ip = `${sp}.downwardAPI.items[${j}]`;
        const path = typeof item['path'] === 'string' ? item['path'] : '';
        if (!path) errs.push(required(`${ip}.path`));
        else errs.push(...validateVolumePath(path, `${ip}.path`));
        if (!present(item['fieldRef']) && !present(item['resourceFieldRef'])) errs.push(required(ip, 'one of fieldRef and resourceFieldRef is required'));
        errs.push(...validateMode(item['mode'], `${ip}.mode`));
        claim(path, p, path);
      });
    }
    if (present(src['serviceAccountToken'])) {
      const t = asRecord(src['serviceAccountToken']);
      const tp = `${sp}.serviceAccountToken`;
      const exp = t['expirationSeconds'] ?? DEFAULT_TOKEN_EXPIRATION_SECONDS;
      if (typeof exp !== 'number' || !Number.isInteger(exp)) errs.push(invalidValue(`${tp}.expirationSeconds`, exp, 'must be an integer'));
      else if (exp < MIN_TOKEN_EXPIRATION_SECONDS) errs.push(invalidValue(`${tp}.expirationSeconds`, exp, 'may not specify a duration less than 10 minutes'));
      else if (exp > MAX_TOKEN_EXPIRATION_SECONDS) errs.push(invalidValue(`${tp}.expirationSeconds`, exp, 'may not specify a duration larger than 2^32 seconds'));
      if (present(t['audience']) && typeof t['audience'] !== 'string') errs.push(invalidValue(`${tp}.audience`, t['audience'], 'must be a string'));
      const path = typeof t['path'] === 'string' ? t['path'] : '';
      // The established error names the projected volume's `path`, not the source's (kept as is).
      if (!path) errs.push(required(`${p}.path`));
      else errs.push(...validateVolumePath(path, `${tp}.path`));
      claim(path, p, path);
    }
  });
  return errs;
}
