// Request validation with zod, reported the way FastAPI/pydantic report it
// (docs/contract.md#28-the-422-body), so clients written against Agenta read our 422s unchanged:
// every fault listed, each with loc, msg, type.
import { z } from 'zod';
import { ValidationError, type ValidationIssue } from './errors.js';
import { parseIsoDateTime } from './time.js';

export type Location = 'body' | 'query' | 'path' | 'header';

const typeWords: Record<string, [type: string, msg: string]> = {
  string: ['string_type', 'Input should be a valid string'],
  number: ['float_type', 'Input should be a valid number'],
  int: ['int_type', 'Input should be a valid integer'],
  boolean: ['bool_type', 'Input should be a valid boolean'],
  array: ['list_type', 'Input should be a valid list'],
  object: ['dict_type', 'Input should be a valid dictionary'],
  record: ['dict_type', 'Input should be a valid dictionary'],
};

function describe(values: readonly unknown[]): string {
  const quoted = values.map((value) => `'${String(value)}'`);
  return quoted.length <= 1 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

const INT_MESSAGE = 'Input should be a valid integer';

/**
 * An integer field. zod reports a string given to `z.int()` as an expected *number*, like a
 * float field; the message set here tells the two apart, so both faults read `int_type`.
 */
export const int = () => z.int({ error: INT_MESSAGE });

/** An ISO-8601 date or date-time (no offset = UTC), as a Date: a query or a price's start. */
export const isoDate = () =>
  z
    .string()
    .transform((value, ctx) => {
      const parsed = parseIsoDateTime(value);
      if ('error' in parsed) {
        ctx.addIssue({
          code: 'custom',
          message: 'Input should be a valid datetime or date, expected ISO 8601 such as 2024-05-01T12:00:00Z',
          params: { type: 'datetime_from_date_parsing' },
        });
        return z.NEVER;
      }
      return new Date(Number(parsed.nanos / 1_000_000n));
    })
    .meta({ description: 'ISO-8601 date or date-time (no offset means UTC)' });

function toIssue(issue: z.core.$ZodIssue, where: Location): ValidationIssue {
  const loc = [where, ...issue.path.map((key) => (typeof key === 'number' ? key : String(key)))];
  // An absent field fails whatever check comes first (type, enum, union): pydantic says `missing`.
  const absent = issue.input === undefined && ['invalid_type', 'invalid_value', 'invalid_union'].includes(issue.code);
  if (absent) return { loc, msg: 'Field required', type: 'missing' };
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.message === INT_MESSAGE) return { loc, msg: INT_MESSAGE, type: 'int_type' };
      const [type, msg] = typeWords[issue.expected] ?? ['value_error', issue.message];
      return { loc, msg, type };
    }
    case 'too_small': {
      if (issue.origin === 'string') {
        return { loc, msg: `String should have at least ${issue.minimum} character${issue.minimum === 1 ? '' : 's'}`, type: 'string_too_short' };
      }
      if (issue.origin === 'array' || issue.origin === 'set') {
        return { loc, msg: `List should have at least ${issue.minimum} item${issue.minimum === 1 ? '' : 's'}`, type: 'too_short' };
      }
      return issue.inclusive
        ? { loc, msg: `Input should be greater than or equal to ${issue.minimum}`, type: 'greater_than_equal' }
        : { loc, msg: `Input should be greater than ${issue.minimum}`, type: 'greater_than' };
    }
    case 'too_big': {
      if (issue.origin === 'string') {
        return { loc, msg: `String should have at most ${issue.maximum} characters`, type: 'string_too_long' };
      }
      if (issue.origin === 'array' || issue.origin === 'set') {
        return { loc, msg: `List should have at most ${issue.maximum} items`, type: 'too_long' };
      }
      return issue.inclusive
        ? { loc, msg: `Input should be less than or equal to ${issue.maximum}`, type: 'less_than_equal' }
        : { loc, msg: `Input should be less than ${issue.maximum}`, type: 'less_than' };
    }
    case 'invalid_value':
      return { loc, msg: `Input should be ${describe(issue.values)}`, type: 'enum' };
    case 'invalid_key': {
      // A record's key failed its own schema: report that schema's fault, at the key.
      const inner = issue.issues[0];
      return inner ? { ...toIssue(inner, where), loc } : { loc, msg: issue.message, type: 'value_error' };
    }
    case 'custom': {
      const type = typeof issue.params?.type === 'string' ? issue.params.type : 'value_error';
      return { loc, msg: issue.message, type };
    }
    default:
      return { loc, msg: issue.message, type: 'value_error' };
  }
}

/** The request's faults in FastAPI's form, or none. */
export function validationIssues(error: z.ZodError, where: Location): ValidationIssue[] {
  return error.issues.map((issue) => toIssue(issue, where));
}

/** Parses `value` with `schema`, throwing a ValidationError (422) that lists every fault. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: Location): z.output<S> {
  return parseInputs([{ schema, value, where }])[0] as z.output<S>;
}

export interface InputPart {
  schema: z.ZodType;
  value: unknown;
  where: Location;
}

/**
 * Parses several parts of one request (path, query, body), throwing one ValidationError that
 * lists the faults of all of them, in the order given, as FastAPI does.
 */
export function parseInputs(parts: InputPart[]): unknown[] {
  const issues: ValidationIssue[] = [];
  const outputs = parts.map(({ schema, value, where }) => {
    const result = schema.safeParse(value, { reportInput: true });
    if (result.success) return result.data;
    issues.push(...validationIssues(result.error, where));
    return undefined;
  });
  if (issues.length) throw new ValidationError(issues);
  return outputs;
}

/** A JSON object (pydantic's `dict`): rejects arrays and scalars with `dict_type`. */
export const jsonObject = () => z.record(z.string(), z.unknown());

/** A required, non-empty string after trimming. */
export const name = () => z.string().trim().min(1);

/** A user's password (docs/access.md#users): 12 to 1024 characters, kept as given (no trim). */
export const password = () => z.string().min(12).max(1024);

/** An email address, lower-cased: one person, one user, however they type it. */
export const email = () =>
  z
    .string()
    .trim()
    .max(320)
    .pipe(z.email())
    .transform((value) => value.toLowerCase());

/** An absolute http(s) URL (pydantic's `url_parsing` otherwise). */
export const httpUrl = () =>
  z
    .string()
    .trim()
    .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), {
      message: 'Input should be a valid URL with scheme http or https',
      params: { type: 'url_parsing' },
    });
