// The GraphQL schema: each domain's graphql.ts (observability's, one per part) adds its types to the shared builder.
import { builder } from '../shared/graphql/builder.js';
import '../apps/graphql.js';
import '../auth/audit/graphql.js';
import '../auth/graphql.js';
import '../auth/keys/graphql.js';
import '../auth/users/graphql.js';
import '../evaluations/graphql.js';
import '../evaluations/external-graphql.js';
import '../evaluators/graphql.js';
import '../human-evaluations/graphql.js';
import '../online-evaluation/graphql.js';
import '../observability/ingestion/graphql.js';
import '../observability/retention/graphql.js';
import '../observability/search/graphql.js';
import '../observability/sessions/graphql.js';
import '../observability/traces/graphql.js';
import '../playground/graphql.js';
import '../pricing/graphql.js';
import '../scores/graphql.js';
import '../annotation-queues/graphql.js';
import '../testsets/graphql.js';

export const schema = builder.toSchema();
