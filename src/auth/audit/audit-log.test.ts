// The audit log (docs/access.md#audit) over real HTTP with auth on: key and project changes are
// recorded with who, when and from where, in the same transaction as the change; a project's
// admins read its log (REST and GraphQL), page through it and filter it, and nobody else can.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../../test/helpers/server.js';
import { systemActor } from '../../shared/context.js';
import { recordAudit } from './operations.js';

const INIT_KEY = 'audit-init-key-0123456789abcdef';
const agent = 'audit-test/1.0';
const server = useTestServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: INIT_KEY });
let projectId: string;

const as = (key: string) => ({ authorization: `Bearer ${key}`, 'user-agent': agent });

async function log(query = '', key = INIT_KEY, project = projectId) {
  return server.request('GET', `/projects/${project}/audit-events${query}`, undefined, as(key));
}

async function graphql(query: string, key = INIT_KEY) {
  return (await server.request('POST', '/graphql', { query }, as(key))).body;
}

beforeAll(async () => {
  projectId = (await server.request('GET', '/projects', undefined, as(INIT_KEY))).body[0].id;
});

describe('recording', () => {
  it('records the ASSAY_INIT_API_KEY as created by the service, once however often the service starts', async () => {
    const events = (await log('?action=api_key.created')).body.events;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      action: 'api_key.created',
      project_id: projectId,
      actor: { type: 'system', id: null, label: null },
      details: { name: 'ASSAY_INIT_API_KEY', scopes: ['read', 'write', 'ingest', 'admin', 'feedback'], source: 'ASSAY_INIT_API_KEY' },
      ip: null,
    });
  });

  it('records a key created and revoked: who (the key that acted), from where, what; never the secret', async () => {
    const made = await server.request('POST', `/projects/${projectId}/api-keys`, { name: 'exporter', scopes: ['ingest'] }, as(INIT_KEY));
    expect(made.status).toBe(200);
    expect((await server.request('DELETE', `/api-keys/${made.body.id}`, undefined, as(INIT_KEY))).status).toBe(204);

    const page = await log('?limit=2');
    expect(page.status).toBe(200);
    const [revoked, created] = page.body.events;
    const initKeyId = created.actor.id;
    expect(created).toMatchObject({
      action: 'api_key.created',
      actor: { type: 'api_key', label: 'ASSAY_INIT_API_KEY (audi…)' },
      target: { type: 'api_key', id: made.body.id },
      details: { name: 'exporter', scopes: ['ingest'], prefix: made.body.key.slice(0, 10) },
      ip: '127.0.0.1',
      user_agent: agent,
    });
    expect(revoked).toMatchObject({
      action: 'api_key.revoked',
      actor: { type: 'api_key', id: initKeyId },
      target: { type: 'api_key', id: made.body.id },
      details: { name: 'exporter', prefix: made.body.key.slice(0, 10) },
    });
    expect(Date.parse(revoked.created_at)).toBeGreaterThanOrEqual(Date.parse(created.created_at));
    expect(page.text).not.toContain(made.body.key);
    expect(page.text).not.toContain(INIT_KEY);
  });

  it('records nothing for a change that did not happen', async () => {
    const before = (await log()).body.events.length;
    expect((await server.request('DELETE', '/api-keys/0190c0de-0000-7000-8000-000000000000', undefined, as(INIT_KEY))).status).toBe(404);
    expect((await server.request('POST', `/projects/${projectId}/api-keys`, { name: 'x', scopes: ['root'] }, as(INIT_KEY))).status).toBe(422);
    expect((await log()).body.events).toHaveLength(before);
  });

  it("records a new project in the new project's log, which the old project's admins do not see", async () => {
    const made = await server.request('POST', '/projects', { name: 'audited' }, as(INIT_KEY));
    expect(made.status).toBe(200);
    const theirs = await log('', made.body.api_key.key, made.body.id);
    expect(theirs.body.events.map((event: { action: string }) => event.action)).toEqual(['api_key.created', 'project.created']);
    expect(theirs.body.events[1]).toMatchObject({ project_id: made.body.id, target: { type: 'project', id: made.body.id }, details: { name: 'audited' } });
    expect((await log()).text).not.toContain(made.body.id);
    // Another project's log is as unknown as a project that does not exist.
    expect((await log('', INIT_KEY, made.body.id)).status).toBe(404);
    expect((await log('', made.body.api_key.key)).status).toBe(404);
  });
});

describe('reading', () => {
  it('pages newest first with next_cursor, the pages together being the whole log', async () => {
    const whole = (await log()).body.events.map((event: { id: string }) => event.id);
    expect(whole.length).toBeGreaterThanOrEqual(3);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { events: { id: string }[]; next_cursor: string | null } = (await log(`?limit=1${cursor ? `&cursor=${cursor}` : ''}`)).body;
      paged.push(...page.events.map((event) => event.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(paged).toEqual(whole);
    expect([...whole].sort().reverse()).toEqual(whole);
  });

  it('shows the instance events of its members (their logins), not of other users', async () => {
    const db = server.assay.db;
    const member = await db.user.create({ data: { email: 'member@example.com', memberships: { create: { projectId, role: 'viewer' } } } });
    const stranger = await db.user.create({ data: { email: 'stranger@example.com' } });
    const origin = { ip: '127.0.0.9', userAgent: 'browser' };
    for (const user of [member, stranger]) {
      await recordAudit(db, { action: 'login.succeeded', projectId: null, actor: { type: 'user', id: user.id, label: user.email }, origin });
    }
    await recordAudit(db, { action: 'password_link.issued', projectId: null, actor: systemActor, origin, target: { type: 'user', id: member.id } });
    const events = (await log('?limit=2')).body.events;
    expect(events.map((event: { action: string }) => event.action)).toEqual(['password_link.issued', 'login.succeeded']);
    expect(events[1]).toMatchObject({ project_id: null, actor: { type: 'user', id: member.id, label: 'member@example.com' }, ip: '127.0.0.9' });
    expect((await log()).text).not.toContain('stranger@example.com');
  });

  it('needs the admin scope; bad queries are 422s naming the parameter', async () => {
    const reader = (await server.request('POST', `/projects/${projectId}/api-keys`, { name: 'reader', scopes: ['read', 'write'] }, as(INIT_KEY))).body.key;
    expect((await log('', reader)).status).toBe(403);
    expect((await server.request('GET', `/projects/${projectId}/audit-events`)).status).toBe(401);
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=x', 'limit'],
      ['?cursor=nope', 'cursor'],
      ['?action=api_key.deleted', 'action'],
    ]) {
      const answer = await log(query);
      expect(answer.status, query).toBe(422);
      expect(answer.body.detail[0].loc, query).toEqual(['query', field]);
    }
  });

  it('answers the same through GraphQL: a connection with filters, both directions, the admin scope', async () => {
    const rest = (await log('?action=api_key.created')).body.events;
    const first = await graphql(
      '{ auditEvents(first: 1, action: API_KEY_CREATED) { edges { cursor node { id action actorType actorLabel targetId details ip userAgent } } pageInfo { hasNextPage endCursor } } }',
    );
    expect(first.errors).toBeUndefined();
    const node = first.data.auditEvents.edges[0].node;
    expect(node).toMatchObject({ action: 'API_KEY_CREATED', actorType: 'API_KEY', targetId: rest[0].target.id, details: rest[0].details, userAgent: agent });
    expect(first.data.auditEvents.pageInfo.hasNextPage).toBe(true);
    const next = await graphql(
      `{ auditEvents(first: 50, after: "${first.data.auditEvents.pageInfo.endCursor}", action: API_KEY_CREATED) { edges { node { targetId } } } }`,
    );
    expect(next.data.auditEvents.edges.map((edge: { node: { targetId: string } }) => edge.node.targetId)).toEqual(
      rest.slice(1).map((event: { target: { id: string } }) => event.target.id),
    );
    const oldest = await graphql('{ auditEvents(last: 1) { edges { node { action actorType details } } } }');
    expect(oldest.data.auditEvents.edges[0].node).toMatchObject({ action: 'API_KEY_CREATED', actorType: 'SYSTEM', details: { source: 'ASSAY_INIT_API_KEY' } });
    const bad = await graphql('{ auditEvents(first: 1, after: "nope") { edges { cursor } } }');
    expect(bad.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});
