// A project's retention setting (docs/observability.md#retention) over real HTTP with auth on:
// set and cleared through REST and GraphQL by an admin key, listed by `GET /projects`, refused
// with 422 naming the field when out of range, 404 for another project, 403 without the admin
// scope; each change is in the audit log with its value before and after.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';

const INIT_KEY = 'settings-init-key-0123456789abcdef';
const server = useTestServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: INIT_KEY });
let projectId: string;

const as = (key: string) => ({ authorization: `Bearer ${key}` });
const patch = (body: unknown, key = INIT_KEY, project = projectId) => server.request('PATCH', `/projects/${project}`, body, as(key));
const graphql = async (query: string, variables: Record<string, unknown>, key = INIT_KEY) =>
  (await server.request('POST', '/graphql', { query, variables }, as(key))).body;

beforeAll(async () => {
  projectId = (await server.request('GET', '/projects', undefined, as(INIT_KEY))).body[0].id;
});

describe("a project's retention", () => {
  it('is set, listed and cleared through REST, each change audited with its value before and after', async () => {
    expect((await server.request('GET', '/projects', undefined, as(INIT_KEY))).body[0].retention_days).toBeNull();
    const set = await patch({ retention_days: 30 });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ id: projectId, retention_days: 30 });
    expect((await server.request('GET', '/projects', undefined, as(INIT_KEY))).body[0].retention_days).toBe(30);
    // An absent field is left as it is.
    expect((await patch({})).body.retention_days).toBe(30);
    expect((await patch({ retention_days: null })).body.retention_days).toBeNull();

    const events = (await server.request('GET', `/projects/${projectId}/audit-events?action=project.updated`, undefined, as(INIT_KEY))).body.events;
    expect(events.map((event: { details: unknown }) => event.details)).toEqual([
      { retention_days: { before: 30, after: null } },
      { retention_days: { before: null, after: 30 } },
    ]);
    expect(events[0]).toMatchObject({ target: { type: 'project', id: projectId }, actor: { type: 'api_key' } });
  });

  it.each([0, -1, 1.5, 3651, '30'])('refuses %j with 422 naming the field', async (value) => {
    const answer = await patch({ retention_days: value });
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['body', 'retention_days']);
  });

  it('is out of reach in another project (404) and without the admin scope (403)', async () => {
    const other = await server.request('POST', '/projects', { name: 'elsewhere' }, as(INIT_KEY));
    expect(other.status, other.text).toBe(200);
    const answer = await patch({ retention_days: 7 }, INIT_KEY, other.body.id);
    expect(answer.status).toBe(404);
    // The other project's own key reaches it.
    expect((await patch({ retention_days: 7 }, other.body.api_key.key, other.body.id)).body.retention_days).toBe(7);

    const reader = await server.request('POST', `/projects/${projectId}/api-keys`, { name: 'reader', scopes: ['read', 'write'] }, as(INIT_KEY));
    expect((await patch({ retention_days: 7 }, reader.body.key)).status).toBe(403);
    const viaGraphql = await graphql(
      'mutation($id: ID!) { updateProject(input: {id: $id, retentionDays: 7}) { retentionDays } }',
      { id: 'x' },
      reader.body.key,
    );
    expect(viaGraphql.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('is set and read through GraphQL (`updateProject`, `Project.retentionDays`)', async () => {
    const projects = await graphql('{ projects { id databaseId retentionDays } }', {});
    const project = projects.data.projects.find((p: { databaseId: string }) => p.databaseId === projectId);
    const mutation = 'mutation($input: UpdateProjectInput!) { updateProject(input: $input) { databaseId retentionDays } }';
    const set = await graphql(mutation, { input: { id: project.id, retentionDays: 90 } });
    expect(set.data.updateProject).toEqual({ databaseId: projectId, retentionDays: 90 });
    const unchanged = await graphql(mutation, { input: { id: project.id } });
    expect(unchanged.data.updateProject.retentionDays).toBe(90);
    const cleared = await graphql(mutation, { input: { id: project.id, retentionDays: null } });
    expect(cleared.data.updateProject.retentionDays).toBeNull();

    const refused = await graphql(mutation, { input: { id: project.id, retentionDays: 0 } });
    expect(refused.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(refused.errors[0].extensions)).toContain('retention_days');
  });
});
