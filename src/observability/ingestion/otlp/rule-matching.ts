// The attribute rules of mapping-rules.ts compiled once into an index by attribute key, and one
// attribute set walked once against it (docs/observability.md#from-attributes-to-the-span): per
// field, the rules it matches in precedence order, the first that reads winning (or all merged).
import type { JsonValue, SpanKind } from '../span-record.js';
import { isObject, parsed, type Attrs } from './attribute-values.js';
import type { JsonObject, OtlpResource, OtlpSpan } from './decoded-span.js';
import { conventions, type Convention, type Field } from './mapping-rules.js';
import { type Hit, type KindHit, type Slot, kindOf, read } from './rule-reads.js';

/** Fields every matching rule adds to (an object), rather than the first one filling. */
const collected = new Set<Field>(['config', 'metadata']);

/** Each field's index in a span's `Matches`, given as rules are compiled. */
const fieldIndex = new Map<Field, number>();
const indexOf = (field: Field) => fieldIndex.get(field) ?? fieldIndex.set(field, fieldIndex.size).get(field)!;

interface Compiled {
  exact: Map<string, Slot[]>;
  prefixes: Map<string, Slot[]>;
  events: Slot[];
  /** Per field, its resource rules in precedence order. */
  resource: Map<Field, Slot[]>;
}

export function compileRules(list: readonly Convention[]): Compiled {
  const compiled: Compiled = { exact: new Map(), prefixes: new Map(), events: [], resource: new Map() };
  let priority = 0;
  for (const convention of list) {
    for (const rule of convention.rules) {
      const prefix = rule.key.endsWith('.*');
      const slot: Slot = { rule, field: indexOf(rule.field), priority: priority++, key: prefix ? rule.key.slice(0, -2) : rule.key, prefix };
      if (rule.key === '@events') compiled.events.push(slot);
      else {
        const index = prefix ? compiled.prefixes : compiled.exact;
        index.set(slot.key, [...(index.get(slot.key) ?? []), slot]);
      }
      if (rule.resource) compiled.resource.set(rule.field, [...(compiled.resource.get(rule.field) ?? []), slot]);
    }
  }
  return compiled;
}

const rules = compileRules(conventions);

/** The rules one attribute set matches, by field index, in precedence order. */
export type Matches = (Hit[] | undefined)[];

export const hitsOf = (matches: Matches, field: Field): Hit[] | undefined => {
  const index = fieldIndex.get(field);
  return index === undefined ? undefined : matches[index];
};

function addHit(matches: Matches, slot: Slot, key: string): void {
  const hits = matches[slot.field];
  if (!hits) matches[slot.field] = [{ slot, key }];
  // A prefix rule matches once per key under it; the first stands for all, except where every key counts.
  else if (!slot.prefix || collected.has(slot.rule.field) || hits[hits.length - 1].slot !== slot) hits.push({ slot, key });
}

/**
 * The rules an attribute key matches, exact and prefix alike, remembered: a client sends the same
 * keys span after span, so each is looked up once, not sliced at every dot for every span. The
 * memory is bounded (a client inventing keys empties it now and then).
 */
const slotsOfKey = new Map<string, readonly Slot[]>();
const MAX_REMEMBERED_KEYS = 20_000;
const none: readonly Slot[] = [];

function slotsOf(key: string): readonly Slot[] {
  let slots = slotsOfKey.get(key);
  if (slots !== undefined) return slots;
  const found: Slot[] = [...(rules.exact.get(key) ?? [])];
  for (let dot = key.indexOf('.'); dot > 0; dot = key.indexOf('.', dot + 1)) {
    const under = rules.prefixes.get(key.slice(0, dot));
    if (under) found.push(...under);
  }
  slots = found.length > 0 ? found : none;
  if (slotsOfKey.size >= MAX_REMEMBERED_KEYS) slotsOfKey.clear();
  slotsOfKey.set(key, slots);
  return slots;
}

const byPriority = (a: Hit, b: Hit) => a.slot.priority - b.slot.priority;

export function match(attrs: Attrs, events: boolean): Matches {
  const matches: Matches = new Array<Hit[] | undefined>(fieldIndex.size);
  for (const key in attrs) {
    const slots = slotsOf(key);
    for (let i = 0; i < slots.length; i++) addHit(matches, slots[i], key);
  }
  if (events) for (const slot of rules.events) addHit(matches, slot, '@events');
  for (const hits of matches) if (hits && hits.length > 1) hits.sort(byPriority);
  return matches;
}

/** The first value the field's rules read, or undefined. */
export function firstOf<T>(matches: Matches, field: Field, attrs: Attrs, span: OtlpSpan | null, kind?: SpanKind): T | undefined {
  const hits = hitsOf(matches, field);
  if (!hits) return undefined;
  for (const hit of hits) {
    if (hit.slot.rule.only && hit.slot.rule.only !== kind) continue;
    const value = read(hit, attrs, span);
    if (value !== undefined) return value as T;
  }
  return undefined;
}

/** A collected field's contributions merged, the rule of highest precedence winning a key. */
export function collect(matches: Matches, field: Field, attrs: Attrs): JsonValue | undefined {
  const hits = hitsOf(matches, field);
  if (!hits) return undefined;
  let merged: JsonObject | undefined;
  let single: JsonValue | undefined;
  for (let i = hits.length - 1; i >= 0; i--) {
    const hit = hits[i];
    if (hit.slot.prefix) {
      const value = attrs[hit.key];
      if (value === undefined) continue;
      const name = hit.key.slice(hit.slot.key.length + 1);
      (merged ??= {})[field === 'config' ? name.replaceAll('.', '_') : name] = field === 'config' ? value : parsed(value)!;
    } else {
      const value = read(hit, attrs, null) as JsonValue | undefined;
      if (value === undefined) continue;
      if (isObject(value)) merged = { ...(merged ?? {}), ...value };
      else single = value;
    }
  }
  return merged ?? single;
}

// The resource's values of the fields that have resource rules, read once per resource.
const resourceValues = new WeakMap<JsonObject, Map<Field, unknown>>();

export function resourceValue(resource: OtlpResource, field: Field): unknown {
  let values = resourceValues.get(resource.attributes);
  if (!values) {
    values = new Map();
    const matches = match(resource.attributes, false);
    for (const resourceField of rules.resource.keys()) {
      const hits = hitsOf(matches, resourceField)?.filter((hit) => hit.slot.rule.resource);
      if (hits?.length) {
        const only: Matches = [];
        only[fieldIndex.get(resourceField)!] = hits;
        const value = firstOf(only, resourceField, resource.attributes, null);
        if (value !== undefined) values.set(resourceField, value);
      }
    }
    resourceValues.set(resource.attributes, values);
  }
  return values.get(field);
}

/** The kind the rules give a span's attributes, and whether its usage repeats its descendants'. */
export function spanKindOf(attrs: Attrs): KindHit {
  return kindHit(match(attrs, false), attrs);
}

export function kindHit(matches: Matches, attrs: Attrs): KindHit {
  for (const hit of hitsOf(matches, 'kind') ?? []) {
    const value = attrs[hit.key];
    const kind = value === undefined || value === null ? undefined : kindOf(hit.slot.rule, value);
    if (kind) return kind;
  }
  return { kind: 'UNKNOWN', rollUp: false };
}
