// Reading OTLP attribute values for the mapping (span-mapping.ts, span-content.ts): the first of
// several keys that is set, as text, a count or an amount; JSON text parsed; flattened keys
// (`p.0.message.role`) nested again. What each key means is decided by the mapping, not here.
import type { JsonValue } from '../span-record.js';
import type { JsonObject } from './decoded-span.js';

export type Attrs = JsonObject;

export const isObject = (value: unknown): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);

/** JSON text (an object or array) parsed, anything else as it is. */
export function parsed(value: JsonValue | undefined): JsonValue | undefined {
  if (typeof value !== 'string') return value;
  const text = value.trimStart();
  if (text[0] !== '{' && text[0] !== '[') return value;
  try {
    return JSON.parse(value) as JsonValue;
  } catch {
    return value;
  }
}

export function first(sources: Attrs[], keys: readonly string[]): JsonValue | undefined {
  for (const source of sources) {
    for (const key of keys) {
      const value = source[key];
      if (value !== undefined && value !== null && value !== '') return value;
    }
  }
  return undefined;
}

export function text(sources: Attrs[], keys: readonly string[]): string | null {
  const value = first(sources, keys);
  if (value === undefined) return null;
  return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

/** A count: an integer ≥ 0 given as a number or a decimal string. */
export function count(attrs: Attrs, keys: readonly string[]): number | null {
  for (const key of keys) {
    const value = attrs[key];
    const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    if (typeof number === 'number' && Number.isSafeInteger(number) && number >= 0) return number;
  }
  return null;
}

export function amount(attrs: Attrs, keys: readonly string[]): number | null {
  for (const key of keys) {
    const value = attrs[key];
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof number === 'number' && Number.isFinite(number) && number >= 0) return number;
  }
  return null;
}

/**
 * The attributes under `prefix.` as one nested value: `p.0.message.role` → `[{message: {role}}]`.
 * Objects whose keys are all indexes become arrays (in index order). Undefined when none.
 */
export function unflatten(attrs: Attrs, prefix: string): JsonValue | undefined {
  const head = `${prefix}.`;
  let root: JsonObject | undefined;
  let created!: Set<JsonObject>;
  for (const key in attrs) {
    if (!key.startsWith(head)) continue;
    const path = key.slice(head.length).split('.');
    if (!root) created = new Set([(root = {})]);
    let node: JsonObject = root;
    let ok = true;
    for (let i = 0; i < path.length - 1; i++) {
      const next = node[path[i]];
      if (next === undefined) {
        node = node[path[i]] = {};
        created.add(node);
      } else if (isObject(next) && created.has(next)) node = next;
      else {
        ok = false; // a leaf already sits where this key needs a branch: the raw attributes keep it
        break;
      }
    }
    const last = path[path.length - 1];
    if (ok && !created.has(node[last] as JsonObject)) node[last] = attrs[key]!;
  }
  return root === undefined ? undefined : arrays(root, created);
}

/** Index-keyed objects built by `unflatten` to arrays (values the client sent are left alone). */
function arrays(value: JsonValue, created: Set<JsonObject>): JsonValue {
  if (!isObject(value) || !created.has(value)) return value;
  const keys = Object.keys(value);
  for (const key of keys) value[key] = arrays(value[key], created);
  if (keys.length > 0 && keys.every((key) => /^\d+$/.test(key))) {
    return keys.sort((a, b) => Number(a) - Number(b)).map((key) => value[key]!);
  }
  return value;
}
