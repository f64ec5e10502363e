// Path and query parameters that are not plain strings: the URL gives strings, these parse them
// (a fault is a 422 at loc "path"/"query", as FastAPI's `int_parsing`).
import { z } from 'zod';

/** An integer path or query parameter (a safe integer), described as one. */
export const intParam = () =>
  z
    .string()
    .refine((value) => /^-?\d+$/.test(value), {
      message: 'Input should be a valid integer, unable to parse string as an integer',
      params: { type: 'int_parsing' },
    })
    .transform(Number)
    .pipe(z.int())
    .meta({
      // The reference says what the parameter means, not that a URL carries text.
      override: ({ jsonSchema }) => {
        for (const key of Object.keys(jsonSchema)) delete (jsonSchema as Record<string, unknown>)[key];
        Object.assign(jsonSchema, { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER });
      },
    });

/** A page's size in a listing's query (`limit`): 1 to 1000, 50 when absent. */
export const pageLimit = () =>
  z
    .string()
    .refine((value) => /^\d+$/.test(value), {
      message: 'Input should be a valid integer, unable to parse string as an integer',
      params: { type: 'int_parsing' },
    })
    .transform(Number)
    .pipe(z.number().int().min(1).max(1000))
    .default(50)
    .meta({ description: '1 to 1000' });

/** A boolean in a query string, in pydantic's spellings (any case). */
export const queryBoolean = () =>
  z
    .string()
    .transform((value, ctx) => {
      const word = value.trim().toLowerCase();
      if (['true', '1', 'yes', 'on', 't', 'y'].includes(word)) return true;
      if (['false', '0', 'no', 'off', 'f', 'n'].includes(word)) return false;
      ctx.addIssue({ code: 'custom', message: 'Input should be a valid boolean, unable to interpret input', params: { type: 'bool_parsing' } });
      return z.NEVER;
    })
    .meta({ description: 'true or false (also 1/0, yes/no, on/off)' });
