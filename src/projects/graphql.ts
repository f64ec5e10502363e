// The Project GraphQL type (docs/graphql.md#ids). Its queries and mutations are src/auth's, which
// creates a project with its first key and knows a user's memberships.
import { builder } from '../shared/graphql/builder.js';
import { inIdOrder } from '../shared/graphql/ids.js';
import { listProjects, type ProjectRow } from './operations.js';

export const Project = builder.node(builder.objectRef<ProjectRow>('Project'), {
  description: 'A tenant: every other object belongs to one.',
  id: { resolve: (project) => project.id },
  // `node(id:)` stays in the caller's project like every node; an instance administrator (and
  // the caller with auth off) acts in every project, so reaches each.
  loadMany: async (ids, ctx) => {
    const { actor, instanceAdmin } = ctx.principal;
    const visible = actor.type === 'system' || instanceAdmin ? ids : ids.filter((id) => id === ctx.projectId);
    return inIdOrder(ids, await listProjects(ctx.db, visible));
  },
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses, and the value of the `X-Assay-Project` header that names the project.' }),
    name: t.exposeString('name', { description: "The project's name." }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the project was created.' }),
    retentionDays: t.exposeInt('retentionDays', {
      nullable: true,
      description: "Days a trace is kept after its latest span ends; null: the instance's ASSAY_RETENTION_DAYS, or forever (docs/observability.md#retention).",
    }),
  }),
});
