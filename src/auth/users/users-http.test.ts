// Users, sessions and memberships with auth on (docs/access.md#users), over real HTTP: the first
// administrator from the environment, logins and their cookie, throttling, roles mapped to scopes,
// the project header, members, password links, sessions ending, and the audit rows of each.
// Behind a "proxy" (ASSAY_TRUST_PROXY): each test signs in from its own X-Forwarded-For address,
// so the per-address throttle of one test does not reach another.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer, onPostgres, startServer, type TestResponse } from '../../../test/helpers/server.js';

const INIT_KEY = 'init-key-for-users-tests-0123456789';
const ADMIN = { email: 'root@example.com', password: 'the first administrator' };
const PASSWORD = 'a password long enough';

const server = useTestServer({
  ASSAY_AUTH: 'on',
  ASSAY_INIT_API_KEY: INIT_KEY,
  ASSAY_INIT_ADMIN_EMAIL: 'Root@Example.com',
  ASSAY_INIT_ADMIN_PASSWORD: ADMIN.password,
  ASSAY_TRUST_PROXY: 'true',
  ASSAY_LOGIN_FAILURES_PER_EMAIL: '3',
  ASSAY_LOGIN_FAILURES_PER_IP: '5',
});
let defaultProject: string;
let otherProject: string;
/** The other project's first key: a key reaches its own project only. */
let otherKey: Record<string, string>;
let address = 0;
/** Every secret the service handed out: none may be stored in clear. */
const tokens: string[] = [];

const bearer = { authorization: `Bearer ${INIT_KEY}` };
const nextIp = () => `10.0.${Math.floor(++address / 250)}.${address % 250}`;

function sessionOf(response: TestResponse): string {
  const cookie = response.headers.get('set-cookie') ?? '';
  const token = /^assay_session=([^;]*)/.exec(cookie)?.[1];
  if (!token) throw new Error(`no session cookie: ${response.status} ${response.text}`);
  tokens.push(token);
  return `assay_session=${token}`;
}

function login(email: string, password: string, ip = nextIp(), headers: Record<string, string> = {}) {
  return server.request('POST', '/auth/login', { email, password }, { 'x-forwarded-for': ip, ...headers });
}

async function signIn(email: string, password = PASSWORD): Promise<string> {
  const response = await login(email, password);
  expect(response.status, response.text).toBe(200);
  return sessionOf(response);
}

/** A request with a session cookie, in `project` when given. */
function as(cookie: string, method: string, path: string, body?: unknown, project?: string) {
  return server.request(method, path, body, { cookie, ...(project ? { 'x-assay-project': project } : {}) });
}

async function ok(response: Promise<TestResponse>): Promise<any> {
  const answer = await response;
  if (answer.status !== 200) throw new Error(`answered ${answer.status}: ${answer.text}`);
  return answer.body;
}

/** The token of a password link's URL (its fragment). */
function tokenOf(url: string): string {
  const token = new URL(url).hash.replace(/^#token=/, '');
  tokens.push(token);
  return token;
}

/** A user added to `project` by the init key, with a password set through a link; answers their id and session. */
async function member(email: string, role: string, project = defaultProject): Promise<{ id: string; cookie: string }> {
  const added = await ok(server.request('POST', `/projects/${project}/members`, { email, role }, bearer));
  const link = await ok(server.request('POST', `/users/${added.user_id}/password-link`, undefined, bearer));
  expect((await server.request('POST', '/auth/password', { token: tokenOf(link.url), password: PASSWORD })).status).toBe(204);
  return { id: added.user_id, cookie: await signIn(email) };
}

function auditRows(action: string) {
  return server.assay.db.auditEvent.findMany({ where: { action }, orderBy: { createdAt: 'asc' } });
}

beforeAll(async () => {
  [{ id: defaultProject }] = await ok(server.request('GET', '/projects', undefined, bearer));
  const other = await ok(server.request('POST', '/projects', { name: 'other' }, bearer));
  otherProject = other.id;
  otherKey = { authorization: `Bearer ${other.api_key.key}` };
});

describe('logging in', () => {
  it('signs the first administrator in: a session cookie, the user and their memberships; /auth/me answers the same', async () => {
    const response = await login(ADMIN.email, ADMIN.password);
    expect(response.status, response.text).toBe(200);
    expect(response.body.user).toMatchObject({ email: ADMIN.email, is_admin: true, has_password: true, name: null });
    expect(response.body.memberships).toEqual([{ project: expect.objectContaining({ id: defaultProject, name: 'default' }), role: 'admin' }]);
    const cookie = response.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^assay_session=[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/);
    const session = sessionOf(response);
    const me = await as(session, 'GET', '/auth/me');
    expect(me.status).toBe(200);
    expect(me.body).toEqual(response.body);
    // Its one project needs no header.
    expect((await as(session, 'GET', '/apps')).status).toBe(200);
    expect(JSON.stringify(response.body)).not.toMatch(/scrypt|password_hash/);
    const [created] = await auditRows('user.created');
    expect(created).toMatchObject({ actorType: 'system', targetId: response.body.user.id });
    const [succeeded] = await auditRows('login.succeeded');
    expect(succeeded).toMatchObject({ actorType: 'user', actorId: response.body.user.id, actorLabel: ADMIN.email, ip: expect.stringMatching(/^10\.0\./) });
  });

  it('marks the cookie Secure behind HTTPS (X-Forwarded-Proto from a trusted proxy) and only then', async () => {
    const secure = await login(ADMIN.email, ADMIN.password, nextIp(), { 'x-forwarded-proto': 'https' });
    expect(secure.headers.get('set-cookie')).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
    sessionOf(secure);
    const plain = await login(ADMIN.email, ADMIN.password, nextIp(), { 'x-forwarded-proto': 'http' });
    expect(plain.headers.get('set-cookie')).not.toMatch(/Secure/);
    sessionOf(plain);
  });

  it('answers a wrong password and an unknown email alike, after as much work, and audits both', async () => {
    const timed = async (email: string) => {
      const start = performance.now();
      const response = await login(email, 'not the password at all');
      return { response, ms: performance.now() - start };
    };
    const wrong = await timed(ADMIN.email);
    const unknown = await timed('nobody@example.com');
    for (const { response } of [wrong, unknown]) {
      expect(response.status).toBe(401);
      expect(response.headers.get('set-cookie')).toBeNull();
      // No Basic challenge: a browser would show its own prompt over the page.
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="assay"');
    }
    expect(unknown.response.text).toBe(wrong.response.text);
    // Both ran scrypt (tens of ms); an unknown email answered at once would take well under a tenth.
    expect(unknown.ms).toBeGreaterThan(wrong.ms / 10);
    const failed = await auditRows('login.failed');
    expect(failed.map((row) => [row.actorLabel, row.actorId === null, JSON.parse(row.details!).reason])).toEqual(
      expect.arrayContaining([
        [ADMIN.email, false, 'wrong_password'],
        ['nobody@example.com', true, 'unknown_email'],
      ]),
    );
  });

  it('validates the body: an email that is not one is a 422 naming it', async () => {
    const response = await login('not-an-email', 'x');
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(['body', 'email']);
  });

  it('refuses /auth/me and every other route without a session, and a made-up cookie', async () => {
    expect((await server.request('GET', '/auth/me')).status).toBe(401);
    const forged = await as('assay_session=forged', 'GET', '/apps');
    expect(forged.status).toBe(401);
    expect(forged.body.detail).toMatch(/session/);
    expect((await as('assay_session=forged', 'GET', '/auth/me')).status).toBe(401);
  });
});

describe('throttling', () => {
  it('refuses an email with 429 and Retry-After after repeated failures, even with the right password; a success resets it', async () => {
    const email = 'throttled@example.com';
    await member(email, 'viewer');
    // Two failures, a success, two more: the success started the count again.
    for (const attempt of [1, 2]) expect((await login(email, `wrong ${attempt}`)).status).toBe(401);
    await signIn(email);
    for (const attempt of [1, 2, 3]) expect((await login(email, `wrong ${attempt}`)).status).toBe(401);
    const refused = await login(email, PASSWORD);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
    expect(refused.body.detail).toMatch(/Too many failed logins for this email/);
    // The refused attempt is in the audit log, after the three wrong passwords.
    const failures = await server.assay.db.auditEvent.findMany({ where: { action: 'login.failed', actorLabel: email }, orderBy: { id: 'desc' }, take: 4 });
    expect(failures.map((event) => JSON.parse(event.details!).reason)).toEqual(['throttled', 'wrong_password', 'wrong_password', 'wrong_password']);
    // Another email is not refused.
    expect((await login(ADMIN.email, ADMIN.password)).status).toBe(200);
  });

  it('refuses an address after repeated failures for any emails; other addresses still sign in', async () => {
    const ip = nextIp();
    for (let i = 0; i < 5; i++) expect((await login(`guess${i}@example.com`, 'wrong password', ip)).status).toBe(401);
    const refused = await login(ADMIN.email, ADMIN.password, ip);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await login(ADMIN.email, ADMIN.password)).status).toBe(200);
  });
});

describe('roles', () => {
  it('maps viewer to read, member to read, write and ingest, admin to every scope, over REST and GraphQL', async () => {
    const viewer = await member('viewer@example.com', 'viewer');
    const writer = await member('member@example.com', 'member');
    const admin = await member('admin@example.com', 'admin');
    const trace = { resourceSpans: [] };
    const cases: [string, string, unknown, Record<string, number>][] = [
      ['GET', '/apps', undefined, { viewer: 200, member: 200, admin: 200 }],
      ['POST', '/apps', { app_name: 'by-session' }, { viewer: 403, member: 200, admin: 409 }],
      ['POST', '/v1/traces', trace, { viewer: 403, member: 200, admin: 200 }],
      ['GET', `/projects/${defaultProject}/api-keys`, undefined, { viewer: 403, member: 403, admin: 200 }],
      ['GET', `/projects/${defaultProject}/members`, undefined, { viewer: 403, member: 403, admin: 200 }],
    ];
    const sessions = { viewer: viewer.cookie, member: writer.cookie, admin: admin.cookie };
    for (const [method, path, body, expected] of cases) {
      for (const [role, cookie] of Object.entries(sessions)) {
        const response = await as(cookie, method, path, body);
        expect(response.status, `${method} ${path} as ${role}: ${response.text}`).toBe(expected[role]);
      }
    }
    const denied = await as(viewer.cookie, 'POST', '/apps', { app_name: 'x' });
    expect(denied.body.detail).toBe('Your role in this project does not allow write');
    const mutation = { query: 'mutation { createApp(input: { appName: "gql-session" }) { id } }' };
    expect((await as(viewer.cookie, 'POST', '/graphql', mutation)).body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await as(writer.cookie, 'POST', '/graphql', mutation)).body.data.createApp.id).toBeTruthy();
    expect((await as(writer.cookie, 'POST', '/graphql', { query: '{ apiKeys { id } }' })).status).toBe(403);
    const me = await as(viewer.cookie, 'POST', '/graphql', { query: '{ me { user { email hasPassword isAdmin } memberships { role project { name } } } }' });
    expect(me.body.data.me).toEqual({
      user: { email: 'viewer@example.com', hasPassword: true, isAdmin: false },
      memberships: [{ role: 'VIEWER', project: { name: 'default' } }],
    });
    // A key has no user.
    expect((await server.request('POST', '/graphql', { query: '{ me { user { email } } }' }, bearer)).body.data.me).toBeNull();
  });

  it('a project admin cannot create projects; an instance administrator can, and becomes its admin member', async () => {
    const admin = await signIn(ADMIN.email, ADMIN.password);
    const projectAdmin = await member('project-admin@example.com', 'admin');
    const refused = await as(projectAdmin.cookie, 'POST', '/projects', { name: 'not-allowed' });
    expect(refused.status).toBe(403);
    const created = await ok(as(admin, 'POST', '/projects', { name: 'made-by-admin' }));
    // Two memberships now: the header is needed.
    const ambiguous = await as(admin, 'GET', '/apps');
    expect(ambiguous.status).toBe(422);
    expect(ambiguous.body.detail[0]).toMatchObject({ loc: ['header', 'x-assay-project'], type: 'missing' });
    const members = await ok(as(admin, 'GET', `/projects/${created.id}/members`, undefined, created.id));
    expect(members).toEqual([expect.objectContaining({ email: ADMIN.email, role: 'admin' })]);
    const names = (await ok(as(admin, 'GET', '/projects', undefined, created.id))).map((project: { name: string }) => project.name);
    expect(names).toEqual(expect.arrayContaining(['default', 'other', 'made-by-admin']));
    expect((await ok(as(projectAdmin.cookie, 'GET', '/projects'))).map((project: { name: string }) => project.name)).toEqual(['default']);
  });
});

describe('the project header', () => {
  it('acts in the project named; one the user is not a member of is 404 exactly as one that does not exist', async () => {
    const both = await member('both@example.com', 'member');
    await ok(server.request('POST', `/projects/${otherProject}/members`, { email: 'both@example.com', role: 'viewer' }, otherKey));
    const outsider = await member('outsider@example.com', 'member');
    const missing = await as(both.cookie, 'GET', '/apps');
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].msg).toMatch(/X-Assay-Project/);
    await ok(as(both.cookie, 'POST', '/apps', { app_name: 'in-default' }, defaultProject));
    expect((await as(both.cookie, 'POST', '/apps', { app_name: 'in-other' }, otherProject)).status).toBe(403);
    const apps = await ok(as(both.cookie, 'GET', '/apps', undefined, otherProject));
    expect(apps.map((app: { app_name: string }) => app.app_name)).not.toContain('in-default');
    const notMember = await as(outsider.cookie, 'GET', '/apps', undefined, otherProject);
    const unknownId = otherProject.slice(0, -4) + 'ffff';
    const unknown = await as(outsider.cookie, 'GET', '/apps', undefined, unknownId);
    expect(notMember.status).toBe(404);
    expect(notMember.text.replace(otherProject, '<id>')).toBe(unknown.text.replace(unknownId, '<id>'));
    // GraphQL reads the same header.
    const gql = await server.request(
      'POST',
      '/graphql',
      { query: '{ apps { edges { node { name } } } }' },
      { cookie: outsider.cookie, 'x-assay-project': otherProject },
    );
    expect(gql.status).toBe(404);
    // A path naming another project than the header's is 404, as for keys, even to an admin of both.
    const admin = await signIn(ADMIN.email, ADMIN.password);
    expect((await as(admin, 'GET', `/projects/${otherProject}/members`, undefined, defaultProject)).status).toBe(404);
    expect((await as(admin, 'GET', `/projects/${otherProject}/members`, undefined, otherProject)).status).toBe(200);
  });

  it('an instance administrator reaches every project as its admin, one that does not exist is 404', async () => {
    const admin = await signIn(ADMIN.email, ADMIN.password);
    expect((await as(admin, 'GET', `/projects/${otherProject}/api-keys`, undefined, otherProject)).status).toBe(200);
    expect((await as(admin, 'GET', '/apps', undefined, otherProject.slice(0, -4) + 'ffff')).status).toBe(404);
  });
});

describe('members', () => {
  it('adds users by email (made without a password when new), changes roles, removes; keeps the last admin; audits each', async () => {
    const added = await ok(server.request('POST', `/projects/${otherProject}/members`, { email: ' New.Person@Example.com ', role: 'viewer' }, otherKey));
    expect(added).toMatchObject({ email: 'new.person@example.com', role: 'viewer', has_password: false, name: null });
    const again = await server.request('POST', `/projects/${otherProject}/members`, { email: 'new.person@example.com', role: 'admin' }, otherKey);
    expect(again.status).toBe(409);
    const badRole = await server.request('POST', `/projects/${otherProject}/members`, { email: 'x@example.com', role: 'owner' }, otherKey);
    expect(badRole.status).toBe(422);
    expect(badRole.body.detail[0].loc).toEqual(['body', 'role']);
    const promoted = await ok(server.request('PATCH', `/projects/${otherProject}/members/${added.user_id}`, { role: 'admin' }, otherKey));
    expect(promoted.role).toBe('admin');
    // The only admin member: neither demoted nor removed.
    const demote = await server.request('PATCH', `/projects/${otherProject}/members/${added.user_id}`, { role: 'member' }, otherKey);
    expect(demote.status).toBe(409);
    expect((await server.request('DELETE', `/projects/${otherProject}/members/${added.user_id}`, undefined, otherKey)).status).toBe(409);
    // Another admin member, and the first may go.
    await ok(server.request('POST', `/projects/${otherProject}/members`, { email: 'second.admin@example.com', role: 'admin' }, otherKey));
    await ok(server.request('PATCH', `/projects/${otherProject}/members/${added.user_id}`, { role: 'member' }, otherKey));
    expect((await server.request('DELETE', `/projects/${otherProject}/members/${added.user_id}`, undefined, otherKey)).status).toBe(204);
    expect((await server.request('DELETE', `/projects/${otherProject}/members/${added.user_id}`, undefined, otherKey)).status).toBe(404);
    const listed = await ok(server.request('GET', `/projects/${otherProject}/members`, undefined, otherKey));
    expect(listed.map((row: { email: string }) => row.email)).not.toContain('new.person@example.com');
    const events = await server.assay.db.auditEvent.findMany({ where: { targetId: added.user_id }, orderBy: { id: 'asc' } });
    expect(events.map((event) => event.action)).toEqual([
      'user.created',
      'membership.added',
      'membership.role_changed',
      'membership.role_changed',
      'membership.removed',
    ]);
    expect(JSON.parse(events[2].details!)).toEqual({ from: 'viewer', to: 'admin' });
    expect(events.every((event) => event.actorType === 'api_key' && event.projectId === otherProject)).toBe(true);
  });

  it('has the same operations in GraphQL', async () => {
    const gql = (query: string, variables?: Record<string, unknown>) => ok(server.request('POST', '/graphql', { query, variables }, bearer));
    const added = await gql('mutation { addMember(input: { email: "gql@example.com", role: MEMBER }) { role user { id databaseId email hasPassword } } }');
    const user = added.data.addMember.user;
    expect(added.data.addMember.role).toBe('MEMBER');
    const changed = await gql('mutation($id: ID!) { changeMemberRole(input: { accountId: $id, role: VIEWER }) { role } }', { id: user.id });
    expect(changed.data.changeMemberRole.role).toBe('VIEWER');
    const members = await gql('{ members { role user { email } } }');
    expect(members.data.members).toContainEqual({ role: 'VIEWER', user: { email: 'gql@example.com' } });
    const link = await gql('mutation($id: ID!) { issuePasswordLink(accountId: $id) { url expiresAt } }', { id: user.id });
    expect(link.data.issuePasswordLink.url).toMatch(/\/set-password#token=/);
    tokenOf(link.data.issuePasswordLink.url);
    const removed = await gql('mutation($id: ID!) { removeMember(accountId: $id) }', { id: user.id });
    expect(removed.data.removeMember).toBe(user.id);
    const again = await gql('mutation($id: ID!) { removeMember(accountId: $id) }', { id: user.id });
    expect(again.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

describe('password links', () => {
  it('work once, before they expire, with a password of the policy; setting one ends the sessions', async () => {
    const added = await ok(server.request('POST', `/projects/${defaultProject}/members`, { email: 'linked@example.com', role: 'viewer' }, bearer));
    // Without a password, nobody signs in as the user.
    expect((await login('linked@example.com', 'anything at all here')).status).toBe(401);
    const link = await ok(server.request('POST', `/users/${added.user_id}/password-link`, undefined, bearer));
    expect(link.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/set-password#token=[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(link.expires_at) - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    const token = tokenOf(link.url);
    const short = await server.request('POST', '/auth/password', { token, password: 'short' });
    expect(short.status).toBe(422);
    expect(short.body.detail[0]).toMatchObject({ loc: ['body', 'password'], type: 'string_too_short' });
    expect((await server.request('POST', '/auth/password', { token, password: PASSWORD })).status).toBe(204);
    const used = await server.request('POST', '/auth/password', { token, password: 'another long password' });
    expect(used.status).toBe(422);
    expect(used.body.detail[0].loc).toEqual(['body', 'token']);
    const session = await signIn('linked@example.com');

    // A new link, expired before use, is refused; one used in time ends the sessions opened before.
    const expired = tokenOf((await ok(server.request('POST', `/users/${added.user_id}/password-link`, undefined, bearer))).url);
    await server.assay.db.passwordLink.updateMany({ where: { userId: added.user_id, usedAt: null }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await server.request('POST', '/auth/password', { token: expired, password: 'another long password' })).status).toBe(422);
    const fresh = tokenOf((await ok(server.request('POST', `/users/${added.user_id}/password-link`, undefined, bearer))).url);
    expect((await server.request('POST', '/auth/password', { token: fresh, password: 'another long password' })).status).toBe(204);
    expect((await as(session, 'GET', '/auth/me')).status).toBe(401);
    expect((await login('linked@example.com', PASSWORD)).status).toBe(401);
    await signIn('linked@example.com', 'another long password');
    expect((await auditRows('password.set')).filter((row) => row.targetId === added.user_id)).toHaveLength(2);
    expect((await auditRows('password_link.issued')).filter((row) => row.targetId === added.user_id)).toHaveLength(3);
  });

  it('a project admin issues links only for members who belong to no project they do not administer', async () => {
    const projectAdmin = await member('links-admin@example.com', 'admin');
    const local = await ok(server.request('POST', `/projects/${defaultProject}/members`, { email: 'local@example.com', role: 'viewer' }, bearer));
    const link = await as(projectAdmin.cookie, 'POST', `/users/${local.user_id}/password-link`);
    expect(link.status, link.text).toBe(200);
    tokenOf(link.body.url);
    await ok(server.request('POST', `/projects/${otherProject}/members`, { email: 'local@example.com', role: 'viewer' }, otherKey));
    expect((await as(projectAdmin.cookie, 'POST', `/users/${local.user_id}/password-link`)).status).toBe(403);
    const root = await ok(as(await signIn(ADMIN.email, ADMIN.password), 'GET', '/auth/me'));
    expect((await as(projectAdmin.cookie, 'POST', `/users/${root.user.id}/password-link`)).status).toBe(403);
    const stranger = await ok(server.request('POST', `/projects/${otherProject}/members`, { email: 'stranger@example.com', role: 'viewer' }, otherKey));
    expect((await as(projectAdmin.cookie, 'POST', `/users/${stranger.user_id}/password-link`)).status).toBe(404);
  });
});

describe('sessions', () => {
  it('end at logout: the row is deleted, the cookie cleared, the next request refused; audited', async () => {
    const session = await signIn(ADMIN.email, ADMIN.password);
    const out = await as(session, 'POST', '/auth/logout');
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toBe('assay_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax');
    expect((await as(session, 'GET', '/auth/me')).status).toBe(401);
    expect((await as(session, 'GET', '/apps')).status).toBe(401);
    // Logging out again, or without a session, is still 204.
    expect((await as(session, 'POST', '/auth/logout')).status).toBe(204);
    expect((await auditRows('logout')).at(-1)).toMatchObject({ actorLabel: ADMIN.email });
  });

  it('expire; their last sight is written at most once a minute', async () => {
    const session = await signIn('viewer@example.com');
    const user = await server.assay.db.user.findUniqueOrThrow({ where: { email: 'viewer@example.com' }, select: { id: true } });
    const rows = () => server.assay.db.session.findMany({ where: { userId: user.id }, orderBy: { createdAt: 'desc' } });
    const [row] = await rows();
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBe(7 * 24 * 3_600_000);
    await server.assay.db.session.update({ where: { id: row.id }, data: { lastSeenAt: new Date(Date.now() - 120_000) } });
    expect((await as(session, 'GET', '/apps')).status).toBe(200);
    await expect.poll(async () => (await rows())[0].lastSeenAt!.getTime(), { timeout: 5000 }).toBeGreaterThan(Date.now() - 10_000);
    await server.assay.db.session.update({ where: { id: row.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await as(session, 'GET', '/apps');
    expect(expired.status).toBe(401);
    expect(expired.body.detail).toMatch(/ended or expired/);
  });

  it('refuses a cross-site write carrying the session cookie, with auth on (CSRF)', async () => {
    const session = await signIn('member@example.com');
    const forms: Record<string, string>[] = [{ 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: 'https://evil.example' }];
    for (const headers of forms) {
      const response = await server.request('POST', '/apps', JSON.stringify({ app_name: 'csrf' }), {
        cookie: session,
        'content-type': 'text/plain',
        ...headers,
      });
      expect(response.status, JSON.stringify(headers)).toBe(403);
      const loginForm = await server.request('POST', '/auth/login', { email: 'member@example.com', password: PASSWORD }, headers);
      expect(loginForm.status).toBe(403);
    }
    expect((await as(session, 'GET', '/apps')).body.map((app: { app_name: string }) => app.app_name)).not.toContain('csrf');
    // The same request from the service's own page passes.
    expect((await server.request('POST', '/apps', { app_name: 'same-origin' }, { cookie: session, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
  });
});

describe('secrets at rest', () => {
  it('keeps no session token, link token or password in the database (SQLite: its file and WAL)', async () => {
    // PostgreSQL's files are the server's: there, every row of the tables that hold them, as text.
    const { db } = server.assay;
    const files = onPostgres
      ? [Buffer.from(JSON.stringify([await db.session.findMany(), await db.passwordLink.findMany(), await db.user.findMany(), await db.auditEvent.findMany()]))]
      : ['assay.db', 'assay.db-wal'].map((file) => readFileSync(join(server.dir, file)));
    expect(tokens.length).toBeGreaterThan(20);
    for (const secret of [...tokens, ADMIN.password, PASSWORD]) {
      for (const file of files) expect(file.includes(secret), 'a secret in the database').toBe(false);
    }
  });
});

describe('the first administrator', () => {
  it('needs both variables, a password of the policy, and is made only when no user exists', async () => {
    await expect(startServer({ ASSAY_INIT_ADMIN_EMAIL: 'a@example.com' })).rejects.toThrow(/ASSAY_INIT_ADMIN_PASSWORD: .*set both or neither/);
    await expect(startServer({ ASSAY_INIT_ADMIN_EMAIL: 'a@example.com', ASSAY_INIT_ADMIN_PASSWORD: 'short' })).rejects.toThrow(/ASSAY_INIT_ADMIN_PASSWORD/);
    await expect(startServer({ ASSAY_AUTH: 'on' })).rejects.toThrow(/ASSAY_INIT_ADMIN_EMAIL and ASSAY_INIT_ADMIN_PASSWORD/);
    // A way in without any key: the administrator.
    const alone = await startServer({ ASSAY_AUTH: 'on', ASSAY_INIT_ADMIN_EMAIL: 'first@example.com', ASSAY_INIT_ADMIN_PASSWORD: ADMIN.password });
    try {
      expect((await alone.request('GET', '/apps')).status).toBe(401);
      expect((await alone.request('POST', '/auth/login', { email: 'first@example.com', password: ADMIN.password })).status).toBe(200);
      expect(await alone.assay.db.user.count()).toBe(1);
    } finally {
      await alone.close();
    }
  });

  it('with auth off, login still works and the session is not needed', async () => {
    const open = await startServer({ ASSAY_INIT_ADMIN_EMAIL: 'off@example.com', ASSAY_INIT_ADMIN_PASSWORD: ADMIN.password });
    try {
      expect(open.assay.authEnabled).toBe(false);
      const response = await open.request('POST', '/auth/login', { email: 'off@example.com', password: ADMIN.password });
      expect(response.status).toBe(200);
      const cookie = /^assay_session=[^;]*/.exec(response.headers.get('set-cookie')!)![0];
      expect((await open.request('GET', '/auth/me', undefined, { cookie })).body.user.email).toBe('off@example.com');
      expect((await open.request('GET', '/apps')).status).toBe(200);
      expect((await open.request('POST', '/auth/logout', undefined, { cookie })).status).toBe(204);
      expect((await open.request('GET', '/auth/me', undefined, { cookie })).status).toBe(401);
    } finally {
      await open.close();
    }
  });
});
