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

/** A branch `unflatten` made (as opposed to a value the client sent, which it never changes). */
class Branch {
  [key: string]: JsonValue;
}

/**
 * The parts of each key under a prefix (`p.0.message.role` under `p` → `["0", "message", "role"]`),
 * per prefix, remembered as rule-matching.ts remembers keys: a client sends the same keys span
 * after span, and slicing them anew was most of `unflatten`'s time. Bounded alike.
 */
const partsUnder = new Map<string, Map<string, readonly string[]>>();
const MAX_REMEMBERED_PARTS = 20_000;
let rememberedParts = 0;

function partsOf(key: string, prefix: string): readonly string[] {
  let parts = partsUnder.get(prefix);
  if (!parts) partsUnder.set(prefix, (parts = new Map<string, readonly string[]>()));
  let found = parts.get(key);
  if (found === undefined) {
    found = key.slice(prefix.length + 1).split('.');
    if (rememberedParts >= MAX_REMEMBERED_PARTS) {
      partsUnder.clear();
      rememberedParts = 0;
      partsUnder.set(prefix, (parts = new Map<string, readonly string[]>()));
    }
    parts.set(key, found);
    rememberedParts++;
  }
  return found;
}

/**
 * The attributes under `prefix.` as one nested value: `p.0.message.role` → `[{message: {role}}]`.
 * Objects whose keys are all indexes become arrays (in index order). Undefined when none.
 */
export function unflatten(attrs: Attrs, prefix: string): JsonValue | undefined {
  let root: Branch | undefined;
  for (const key in attrs) {
    if (key.length <= prefix.length || key.charCodeAt(prefix.length) !== 46 || !key.startsWith(prefix)) continue;
    const parts = partsOf(key, prefix);
    root ??= new Branch();
    let node: Branch = root;
    const last = parts.length - 1;
    let ok = true;
    for (let i = 0; i < last; i++) {
      const part = parts[i];
      const next = node[part];
      if (next === undefined) node = node[part] = new Branch();
      else if (next instanceof Branch) node = next;
      else {
        ok = false; // a leaf already sits where this key needs a branch: the raw attributes keep it
        break;
      }
    }
    if (ok && !(node[parts[last]] instanceof Branch)) node[parts[last]] = attrs[key]!;
  }
  return root === undefined ? undefined : arrays(root);
}

function isIndex(key: string): boolean {
  if (key.length === 0) return false;
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

/**
 * Branches made by `unflatten` whose keys are all indexes to arrays (in index order); the other
 * branches stay as they are (plain objects to JSON, whose prototype nothing reads).
 */
function arrays(value: JsonValue): JsonValue {
  if (!(value instanceof Branch)) return value;
  const keys = Object.keys(value);
  let indexed = keys.length > 0;
  for (const key of keys) {
    const item = value[key];
    if (item instanceof Branch) value[key] = arrays(item);
    if (indexed && !isIndex(key)) indexed = false;
  }
  if (!indexed) return value;
  // Canonical indexes are enumerated in ascending order already; others ("01") are sorted.
  if (keys.some((key) => key.length > 1 && key[0] === '0')) keys.sort((a, b) => Number(a) - Number(b));
  return keys.map((key) => value[key]);
}
