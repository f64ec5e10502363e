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
  // A body or a nested model (`rate_limit`): FastAPI validates them with from_attributes.
  object: ['model_attributes_type', 'Input should be a valid dictionary or object to extract fields from'],
  // A `dict` field (`settings_values`, `lm_providers_keys`).
  record: ['dict_type', 'Input should be a valid dictionary'],
};

function describe(values: readonly unknown[]): string {
  const quoted = values.map((value) => `'${String(value)}'`);
  return quoted.length <= 1 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

const INT_MESSAGE = 'Input should be a valid integer';
const FLOAT_MESSAGE = 'Input should be a valid number';
const BOOL_MESSAGE = 'Input should be a valid boolean';
const URL_MESSAGE = 'URL input should be a string or URL';

type Fault = [type: string, msg: string];
const faults = {
  intParsing: ['int_parsing', 'Input should be a valid integer, unable to parse string as an integer'],
  intFromFloat: ['int_from_float', 'Input should be a valid integer, got a number with a fractional part'],
  intSize: ['int_parsing_size', 'Unable to parse input string as an integer, exceeded maximum size'],
  finite: ['finite_number', 'Input should be a finite number'],
  floatParsing: ['float_parsing', 'Input should be a valid number, unable to parse string as a number'],
  boolParsing: ['bool_parsing', 'Input should be a valid boolean, unable to interpret input'],
} satisfies Record<string, Fault>;

/** Python's int() of a string, as pydantic reads one: digits with single underscores, ".0…" allowed. */
const INT_TEXT = /^[+-]?\d(?:_?\d)*(?:\.0+)?$/;
/** Python's float() of a string. */
const FLOAT_TEXT = /^[+-]?(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.?)(?:[eE][+-]?\d(?:_?\d)*)?$/;
/**
 * pydantic fails to make an int of a float beyond i64 (`int_parsing_size`), while a JSON integer
 * of any size is an int to Python. JSON.parse loses which one the text held; JavaScript's
 * JSON.stringify writes whole numbers from 1e21 up in exponent form, so from there it was a float.
 */
const FLOAT_WRITTEN = 1e21;
const TRUE_WORDS = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE_WORDS = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

/**
 * pydantic's lax mode (its default, so what Agenta's FastAPI accepts): a JSON value read as a
 * number or boolean where that is what it plainly says, `"5"` for 5, `"yes"` for true
 * (docs/validation.md#lax-values). Answers the value, or the fault; a value of another type is
 * passed on as it is, for the type check to name (`int_type`, …).
 */
type Coerce = (value: unknown) => { value: unknown } | { fault: Fault };

function laxParse(coerce: Coerce) {
  return (value: unknown, ctx: z.RefinementCtx) => {
    const result = coerce(value);
    if ('value' in result) return result.value;
    const [type, message] = result.fault;
    ctx.addIssue({ code: 'custom', message, params: { type } });
    return z.NEVER;
  };
}

const as = (value: unknown) => ({ value });
const fault = (which: Fault) => ({ fault: which });

const laxInt: Coerce = (value) => {
  if (typeof value === 'boolean') return as(Number(value));
  if (typeof value === 'string') {
    const text = value.trim();
    return INT_TEXT.test(text) ? as(Number(text.replaceAll('_', '')) || 0) : fault(faults.intParsing);
  }
  if (typeof value !== 'number') return as(value);
  if (!Number.isFinite(value)) return fault(faults.finite);
  if (!Number.isInteger(value)) return fault(faults.intFromFloat);
  return Math.abs(value) >= FLOAT_WRITTEN ? fault(faults.intSize) : as(value);
};

const laxFloat: Coerce = (value) => {
  if (typeof value === 'boolean') return as(Number(value));
  if (typeof value === 'string') {
    const number = Number(value.trim().replaceAll('_', ''));
    return FLOAT_TEXT.test(value.trim()) && Number.isFinite(number) ? as(number) : fault(faults.floatParsing);
  }
  return typeof value === 'number' && !Number.isFinite(value) ? fault(faults.finite) : as(value);
};

const laxBool: Coerce = (value) => {
  if (typeof value === 'string') {
    const word = value.toLowerCase();
    return TRUE_WORDS.has(word) ? as(true) : FALSE_WORDS.has(word) ? as(false) : fault(faults.boolParsing);
  }
  if (typeof value === 'number' && Number.isInteger(value)) return value === 1 || value === 0 ? as(value === 1) : fault(faults.boolParsing);
  return as(value);
};

interface Bounds {
  min?: number;
  max?: number;
}

/** The reference shows what the field takes (its JSON type and bounds), not the lax reading's `unknown`. */
function described(type: 'integer' | 'number' | 'boolean', { min, max }: Bounds = {}) {
  return {
    override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
      Object.assign(jsonSchema, { type }, min === undefined ? {} : { minimum: min }, max === undefined ? {} : { maximum: max });
    },
  };
}

/**
 * An integer field, read as pydantic's lax mode reads one. Bounds default to the safe integers,
 * which a JavaScript number holds exactly.
 */
export const int = ({ min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER }: Bounds = {}) =>
  z
    .unknown()
    .transform(laxParse(laxInt))
    .pipe(z.number({ error: INT_MESSAGE }).min(min).max(max))
    .meta(described('integer', { min, max }));

/** A number field (pydantic's `float`), read as its lax mode reads one; finite. */
export const number = (bounds: Bounds = {}) =>
  z
    .unknown()
    .transform(laxParse(laxFloat))
    .pipe(
      z
        .number({ error: FLOAT_MESSAGE })
        .min(bounds.min ?? -Number.MAX_VALUE)
        .max(bounds.max ?? Number.MAX_VALUE),
    )
    .meta(described('number', bounds));

/** A boolean field, read as pydantic's lax mode reads one ("yes", "off", 1, 0). */
export const boolean = () =>
  z
    .unknown()
    .transform(laxParse(laxBool))
    .pipe(z.boolean({ error: BOOL_MESSAGE }))
    .meta(described('boolean'));

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
  // A JSON `null` body is no body to FastAPI.
  const absent =
    (issue.input === undefined || (where === 'body' && issue.path.length === 0 && issue.input === null)) &&
    ['invalid_type', 'invalid_value', 'invalid_union'].includes(issue.code);
  if (absent) return { loc, msg: 'Field required', type: 'missing' };
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.message === INT_MESSAGE) return { loc, msg: INT_MESSAGE, type: 'int_type' };
      if (issue.message === FLOAT_MESSAGE) return { loc, msg: FLOAT_MESSAGE, type: 'float_type' };
      if (issue.message === BOOL_MESSAGE) return { loc, msg: BOOL_MESSAGE, type: 'bool_type' };
      if (issue.message === URL_MESSAGE) return { loc, msg: URL_MESSAGE, type: 'url_type' };
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
      // A record's key failed its own schema: report that schema's fault, at the key, as
      // pydantic does (`[..., "<key>", "[key]"]`).
      const inner = issue.issues[0];
      const at = [...loc, '[key]'];
      return inner ? { ...toIssue(inner, where), loc: at } : { loc: at, msg: issue.message, type: 'value_error' };
    }
    case 'custom': {
      const type = typeof issue.params?.type === 'string' ? issue.params.type : 'value_error';
      return { loc, msg: issue.message, type };
    }
    default:
      return { loc, msg: issue.message, type: 'value_error' };
  }
}

/**
 * A union's faults: when the input is of the JSON type of exactly one of its branches (an object
 * where a score or a list of scores is taken), that branch's faults, at their fields; otherwise
 * the union's own.
 */
function unionIssues(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== 'invalid_union' || issue.input === undefined) return [issue];
  const typeMismatch = (branch: z.core.$ZodIssue[]) => branch.length === 1 && branch[0].code === 'invalid_type' && branch[0].path.length === 0;
  const matching = issue.errors.filter((branch) => !typeMismatch(branch));
  if (matching.length !== 1) return [issue];
  return matching[0].flatMap((inner) => unionIssues({ ...inner, path: [...issue.path, ...inner.path] }));
}

/** The request's faults in FastAPI's form, or none. */
export function validationIssues(error: z.ZodError, where: Location): ValidationIssue[] {
  return error.issues.flatMap(unionIssues).map((issue) => toIssue(issue, where));
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

/** An absolute http(s) URL, faulted as pydantic's `HttpUrl` faults one. */
export const httpUrl = () =>
  z
    .string({ error: URL_MESSAGE })
    .trim()
    .superRefine((value, ctx) => {
      if (!URL.canParse(value)) {
        ctx.addIssue({ code: 'custom', message: 'Input should be a valid URL, relative URL without a base', params: { type: 'url_parsing' } });
      } else if (!/^https?:$/.test(new URL(value).protocol)) {
        ctx.addIssue({ code: 'custom', message: "URL scheme should be 'http' or 'https'", params: { type: 'url_scheme' } });
      }
    });
