// The GraphQL schema: each domain's graphql.ts adds its types to the shared builder.
import { builder } from '../shared/graphql/builder.js';
import '../apps/graphql.js';
import '../auth/audit/graphql.js';
import '../auth/graphql.js';
import '../auth/keys/graphql.js';
import '../auth/users/graphql.js';
import '../evaluations/graphql.js';
import '../evaluators/graphql.js';
import '../human-evaluations/graphql.js';
import '../observability/graphql.js';
import '../pricing/graphql.js';
import '../testsets/graphql.js';

export const schema = builder.toSchema();
