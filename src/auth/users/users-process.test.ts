// The first administrator from the environment and `npm run assay -- users create`, against the
// real service as a process (docs/access.md#the-first-administrator): with auth on and no key it
// starts, since an administrator is a way in; the link the command prints sets a password; and no
// session token, link token or password ever appears in the service's log.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startAssayProcess, type AssayProcess } from '../../../test/helpers/process.js';

const dir = mkdtempSync(join(tmpdir(), 'assay-users-'));
const env = { ...process.env, DATABASE_URL: `file:${join(dir, 'assay.db')}` };
const ADMIN_PASSWORD = 'first admin password never logged';
let service: AssayProcess | undefined;

afterAll(async () => {
  await service?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const assay = (...args: string[]) => runCli(env, ...args);

const cookieOf = (setCookie: string | null) => /^assay_session=[^;]+/.exec(setCookie ?? '')![0];

describe('users from the environment and the command line', () => {
  it('starts with only an administrator as a way in; a printed link sets a password; nothing secret is logged', async () => {
    service = await startAssayProcess(dir, {
      ...env,
      ASSAY_AUTH: 'on',
      ASSAY_INIT_ADMIN_EMAIL: 'root@example.com',
      ASSAY_INIT_ADMIN_PASSWORD: ADMIN_PASSWORD,
      LOG_LEVEL: 'debug',
      OTLP_GRPC_PORT: '0',
    });
    const secrets = [ADMIN_PASSWORD];
    expect((await service.request('GET', '/apps')).status).toBe(401);
    const login = await service.request('POST', '/auth/login', { email: 'root@example.com', password: ADMIN_PASSWORD });
    expect(login.status).toBe(200);
    const cookie = cookieOf(login.headers.get('set-cookie'));
    secrets.push(cookie.split('=')[1]);
    expect((await service.request('GET', '/apps', undefined, { cookie })).status).toBe(200);

    // The command works beside the running service, on its database and secret.
    const created = await assay('users', 'create', '--email', 'Ops@Example.com', '--admin', '--url', service.url);
    expect(created.code, created.stderr).toBe(0);
    const url = created.stdout.trim();
    expect(url).toMatch(new RegExp(`^${service.url}/set-password#token=[A-Za-z0-9_-]{43}$`));
    expect(created.stderr).toMatch(/created the instance administrator ops@example\.com/);
    expect((await assay('users', 'create', '--email', 'ops@example.com')).stderr).toMatch(/already exists/);
    expect((await assay('users', 'create', '--email', 'not-an-email')).code).toBe(2);

    const token = new URL(url).hash.slice('#token='.length);
    const password = 'the ops password, never logged';
    secrets.push(token, password);
    expect((await service.request('POST', '/auth/password', { token, password })).status).toBe(204);
    const ops = await service.request('POST', '/auth/login', { email: 'ops@example.com', password });
    expect(ops.status).toBe(200);
    expect(ops.body.user.is_admin).toBe(true);
    const opsCookie = cookieOf(ops.headers.get('set-cookie'));
    secrets.push(opsCookie.split('=')[1]);
    expect((await service.request('POST', '/auth/login', { email: 'ops@example.com', password: `${password}!` })).status).toBe(401);
    expect((await service.request('GET', '/auth/me', undefined, { cookie: opsCookie })).status).toBe(200);
    expect((await service.request('POST', '/auth/logout', undefined, { cookie: opsCookie })).status).toBe(204);

    expect(await service.stop()).toBe(0);
    const log = service.messages.join('\n') + JSON.stringify(service.lines) + service.stderr();
    expect(service.lines.some((line) => line.url === '/auth/login')).toBe(true);
    for (const secret of secrets) expect(log.includes(secret), 'a secret in the log').toBe(false);
    service = undefined;
  }, 60_000);
});
