// The caller's projects (src/auth/projects.ts) with auth on: listing and creating projects act in
// no project, so an instance administrator who belongs to several needs no X-Assay-Project for
// them, over REST and GraphQL; what acts in a project still asks for the header
// (docs/access.md#the-project-of-a-session).
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';

const ADMIN = { email: 'instance-admin@example.com', password: 'the instance administrator' };
const server = useTestServer({ ASSAY_AUTH: 'on', ASSAY_INIT_ADMIN_EMAIL: ADMIN.email, ASSAY_INIT_ADMIN_PASSWORD: ADMIN.password });
let cookie: string;

const asAdmin = (method: string, path: string, body?: unknown) => server.request(method, path, body, { cookie });
const graphql = async (query: string) => (await asAdmin('POST', '/graphql', { query })).body;

beforeAll(async () => {
  const login = await server.request('POST', '/auth/login', ADMIN);
  expect(login.status, login.text).toBe(200);
  cookie = /^(assay_session=[^;]*)/.exec(login.headers.get('set-cookie') ?? '')![1];
  // A second membership: the administrator becomes the admin member of what they create.
  const created = await asAdmin('POST', '/projects', { name: 'second' });
  expect(created.status, created.text).toBe(200);
});

describe('an instance administrator of several projects, without X-Assay-Project', () => {
  it('lists and creates projects over REST', async () => {
    const listed = await asAdmin('GET', '/projects');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.map((project: { name: string }) => project.name)).toEqual(['default', 'second']);
    const created = await asAdmin('POST', '/projects', { name: 'third' });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({ name: 'third', api_key: { key: expect.any(String) } });
  });

  it('lists and creates projects over GraphQL, and reads who they are', async () => {
    const listed = await graphql('{ projects { name } me { user { email } } }');
    expect(listed.errors).toBeUndefined();
    expect(listed.data.projects.map((project: { name: string }) => project.name)).toEqual(expect.arrayContaining(['default', 'second']));
    expect(listed.data.me.user.email).toBe(ADMIN.email);
    const created = await graphql('mutation { createProject(input: { name: "fourth" }) { project { name } } }');
    expect(created.errors).toBeUndefined();
    expect(created.data.createProject.project.name).toBe('fourth');
  });

  it('still names a project for what acts in one', async () => {
    const apps = await asAdmin('GET', '/apps');
    expect(apps.status).toBe(422);
    expect(apps.body.detail[0]).toMatchObject({ loc: ['header', 'x-assay-project'], type: 'missing' });
    const mixed = await graphql('{ projects { name } apps { edges { node { name } } } }');
    expect(mixed.data).toBeUndefined();
    expect(mixed.errors[0]).toMatchObject({ message: expect.stringContaining('X-Assay-Project'), extensions: { code: 'BAD_USER_INPUT' } });
  });
});
