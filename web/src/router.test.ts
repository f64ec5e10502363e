import { describe, expect, it } from 'vitest';
import { matchRoute, paths } from './router.tsx';

describe('matchRoute', () => {
  it('names the screen of every UI path and nothing else', () => {
    expect(matchRoute('/')).toEqual({ screen: 'home' });
    expect(matchRoute('/p/p1')).toEqual({ screen: 'traces', projectId: 'p1' });
    expect(matchRoute('/p/p1/traces/')).toEqual({ screen: 'traces', projectId: 'p1' });
    expect(matchRoute('/p/p1/traces/t%2F1', '?span=s1')).toEqual({ screen: 'trace', projectId: 'p1', traceId: 't/1', spanId: 's1' });
    expect(matchRoute('/p/p1/traces/t1')).toMatchObject({ spanId: null });
    for (const path of ['/apps', '/p', '/p/p1/nothing', '/p/p1/traces/t1/more']) expect(matchRoute(path)).toBeNull();
  });

  it('builds the paths it reads', () => {
    expect(matchRoute(paths.trace('p 1', 'a/b'), '?span=x')).toEqual({ screen: 'trace', projectId: 'p 1', traceId: 'a/b', spanId: 'x' });
    expect(paths.trace('p', 't', 's/1')).toBe('/p/p/traces/t?span=s%2F1');
    expect(paths.traces('p', '?sort=COST')).toBe('/p/p/traces?sort=COST');
  });
});

describe('the session and administration paths', () => {
  it('reads the login, password and admin screens', () => {
    expect(matchRoute('/login', '?next=%2Fp%2Fx')).toEqual({ screen: 'login' });
    expect(matchRoute('/set-password')).toEqual({ screen: 'set-password' });
    expect(matchRoute('/p/p1/admin')).toEqual({ screen: 'admin', projectId: 'p1', section: 'keys' });
    expect(matchRoute(paths.admin('p 1', 'audit'))).toEqual({ screen: 'admin', projectId: 'p 1', section: 'audit' });
    expect(paths.admin('p1', 'audit', '?action=LOGOUT')).toBe('/p/p1/admin/audit?action=LOGOUT');
    for (const path of ['/p/p1/admin/nothing', '/p/p1/admin/keys/1', '/login/more']) expect(matchRoute(path)).toBeNull();
  });

  it('comes back only to a path of the UI after signing in', () => {
    expect(paths.login('/p/a b/traces?x=1')).toBe('/login?next=%2Fp%2Fa%20b%2Ftraces%3Fx%3D1');
    for (const next of [undefined, '/', '//evil.example', 'https://evil.example', '/login?next=%2F']) expect(paths.login(next)).toBe('/login');
  });
});
