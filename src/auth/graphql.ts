// GraphQL of the caller's projects (docs/access.md#projects-and-keys), calling the same operations
// as REST; the Project type is src/projects'. Creating and changing a project need the admin
// scope (`extensions.scope`, src/graphql/scopes.ts).
import { NotFoundError } from '../shared/errors.js';
import { createProjectInput, updateProjectInput } from '../projects/inputs.js';
import { Project } from '../projects/graphql.js';
import { builder } from '../shared/graphql/builder.js';
import { parseInput } from '../shared/validation.js';
import { CreatedApiKey } from './keys/graphql.js';
import { callerProjects, createProjectWithKey, updateProject } from './projects.js';

const admin = { scope: 'admin' };

const CreatedProject = builder.objectRef<Awaited<ReturnType<typeof createProjectWithKey>>>('CreatedProject').implement({
  description: 'A new project and its first API key, holding every scope.',
  fields: (t) => ({
    project: t.field({ type: Project, description: 'The new project.', resolve: ({ project }) => project }),
    apiKey: t.field({ type: CreatedApiKey, description: 'Its first key, with the secret.', resolve: ({ apiKey, key }) => ({ row: apiKey, key }) }),
  }),
});

const CreateProjectInput = builder.inputType('CreateProjectInput', {
  description: 'A new project (REST: the body of `POST /projects`).',
  fields: (t) => ({ name: t.string({ required: true, description: "The project's name." }) }),
});

const UpdateProjectInput = builder.inputType('UpdateProjectInput', {
  description: "A project's settings (REST: the body of `PATCH /projects/{project_id}`); a field left out is left as it is.",
  fields: (t) => ({
    id: t.globalID({ required: true, description: "The global id of the caller's project." }),
    retentionDays: t.int({
      description: "Days a trace is kept after its latest span ends (1 to 3650); null: the instance's ASSAY_RETENTION_DAYS, or forever.",
    }),
  }),
});

builder.queryFields((t) => ({
  projects: t.field({
    type: [Project],
    description: "The caller's projects: its API key's, a signed-in user's memberships' (every project for an instance administrator, and when auth is off).",
    extensions: { instanceWide: true },
    resolve: (_root, _args, ctx) => callerProjects(ctx),
  }),
}));

builder.mutationFields((t) => ({
  createProject: t.field({
    type: CreatedProject,
    description: 'A new project with a first API key holding every scope (needs the admin scope).',
    extensions: { ...admin, instanceWide: true },
    args: { input: t.arg({ type: CreateProjectInput, required: true, description: 'The project.' }) },
    resolve: (_root, args, ctx) => createProjectWithKey(ctx, parseInput(createProjectInput, args.input, 'body')),
  }),
  updateProject: t.field({
    type: Project,
    description: "Changes the caller's project's settings, its retention (needs the admin scope).",
    extensions: admin,
    args: { input: t.arg({ type: UpdateProjectInput, required: true, description: 'The project and what changes.' }) },
    resolve: (_root, { input }, ctx) => {
      if (input.id.typename !== 'Project') throw new NotFoundError('project', input.id.id);
      const body = input.retentionDays === undefined ? {} : { retention_days: input.retentionDays };
      return updateProject(ctx, input.id.id, parseInput(updateProjectInput, body, 'body'));
    },
  }),
}));
