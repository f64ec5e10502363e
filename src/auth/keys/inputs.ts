// Inputs of API keys (docs/access.md#projects-and-keys). REST and GraphQL validate with these.
import { z } from 'zod';
import { scopes } from '../../shared/context.js';
import { name } from '../../shared/validation.js';

const scopeList = z
  .array(z.enum(scopes))
  .min(1)
  .transform((list) => scopes.filter((scope) => list.includes(scope)));

export const createApiKeyInput = z.object({ name: name().max(255), scopes: scopeList });
