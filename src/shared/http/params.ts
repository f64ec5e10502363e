// Path and query parameters that are not plain strings, validated like bodies (loc "path"/"query").
import { z } from 'zod';
import { parseInput, type Location } from '../validation.js';

const integer = z
  .string()
  .refine((value) => /^-?\d+$/.test(value), {
    message: 'Input should be a valid integer, unable to parse string as an integer',
    params: { type: 'int_parsing' },
  })
  .transform(Number);

/** An integer path or query parameter; `int_parsing` 422 otherwise. */
export function intParam(value: unknown, name: string, where: Location = 'path'): number {
  return parseInput(z.object({ [name]: integer }), { [name]: value }, where)[name] as number;
}
