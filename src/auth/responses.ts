// REST answer of a project made with its first key (docs/access.md#projects-and-keys).
import { projectResponse } from '../projects/responses.js';
import { createdApiKeyResponse } from './keys/responses.js';

export const createdProjectResponse = projectResponse
  .extend({ api_key: createdApiKeyResponse.pick({ id: true, name: true, scopes: true, key: true }) })
  .meta({ id: 'CreatedProject' });
