import { describe, expect, it } from 'vitest';
import { matchRoute, paths } from './router.tsx';

describe('matchRoute', () => {
  it('names the screen of every UI path and nothing else', () => {
    expect(matchRoute('/')).toEqual({ screen: 'home' });
    expect(matchRoute('/p/p1')).toEqual({ screen: 'traces', projectId: 'p1' });
    expect(matchRoute('/p/p1/traces/')).toEqual({ screen: 'traces', projectId: 'p1' });
    expect(matchRoute('/p/p1/traces/t%2F1', '?span=s1')).toEqual({ screen: 'trace', projectId: 'p1', traceId: 't/1', spanId: 's1' });
    expect(matchRoute('/p/p1/traces/t1')).toMatchObject({ spanId: null });
    expect(matchRoute('/p/p1/sessions')).toEqual({ screen: 'sessions', projectId: 'p1' });
    expect(matchRoute(paths.session('p1', 'chat/1 2'))).toEqual({ screen: 'session', projectId: 'p1', sessionId: 'chat/1 2' });
    for (const path of ['/apps', '/p', '/p/p1/nothing', '/p/p1/traces/t1/more', '/p/p1/sessions/s1/more']) expect(matchRoute(path)).toBeNull();
  });

  it('names the evaluation screens', () => {
    expect(matchRoute('/p/p1/evaluations')).toEqual({ screen: 'evaluations', projectId: 'p1' });
    expect(matchRoute('/p/p1/evaluations/new')).toEqual({ screen: 'evaluation-new', projectId: 'p1' });
    expect(matchRoute('/p/p1/evaluations/e1')).toEqual({ screen: 'evaluation', projectId: 'p1', evaluationId: 'e1' });
    expect(matchRoute('/p/p1/evaluations/compare', '?ids=a,b')).toEqual({ screen: 'evaluation-compare', projectId: 'p1', evaluationIds: ['a', 'b'] });
    expect(matchRoute('/p/p1/evaluations/compare')).toEqual({ screen: 'evaluation-compare', projectId: 'p1', evaluationIds: [] });
    expect(matchRoute('/p/p1/evaluations/e1/more')).toBeNull();
    const compare = paths.compareEvaluations('p', ['a', 'b/c']);
    expect(matchRoute(compare.split('?')[0], `?${compare.split('?')[1]}`)).toMatchObject({ evaluationIds: ['a', 'b/c'] });
  });

  it('names the screens of apps, test sets and human evaluation, with their query parameters', () => {
    expect(matchRoute('/p/p1/apps')).toEqual({ screen: 'apps', projectId: 'p1' });
    expect(matchRoute('/p/p1/apps/a1')).toEqual({ screen: 'app', projectId: 'p1', appId: 'a1' });
    expect(matchRoute('/p/p1/apps/a1/configs/new')).toEqual({ screen: 'config-new', projectId: 'p1', appId: 'a1' });
    expect(matchRoute('/p/p1/apps/a1/configs/c1')).toEqual({ screen: 'config', projectId: 'p1', appId: 'a1', configId: 'c1' });
    expect(matchRoute('/p/p1/apps/a1/variants/v1', '?from=1&to=3')).toEqual({
      screen: 'variant',
      projectId: 'p1',
      appId: 'a1',
      variantId: 'v1',
      from: 1,
      to: 3,
    });
    expect(matchRoute('/p/p1/apps/a1/variants/v1', '?from=x&to=-2')).toMatchObject({ from: null, to: null });
    expect(matchRoute('/p/p1/testsets/t1', '?after=c')).toEqual({ screen: 'testset', projectId: 'p1', testsetId: 't1', after: 'c', revision: null });
    expect(matchRoute('/p/p1/testsets/t1', '?revision=2')).toEqual({ screen: 'testset', projectId: 'p1', testsetId: 't1', after: null, revision: 2 });
    expect(matchRoute('/p/p1/human-evaluations/h1/judge', '?judge=ada&case=2')).toEqual({
      screen: 'human-judge',
      projectId: 'p1',
      evaluationId: 'h1',
      judge: 'ada',
      at: 2,
    });
    for (const path of ['/p/p1/apps/a1/other/x', '/p/p1/testsets/t1/rows', '/p/p1/human-evaluations/h1/other', '/p/p1/apps/a1/variants/v1/x/y'])
      expect(matchRoute(path)).toBeNull();
    expect(paths.humanJudge('p', 'h', 'a b', 3)).toBe('/p/p/human-evaluations/h/judge?judge=a+b&case=3');
    expect(paths.humanJudge('p', 'h')).toBe('/p/p/human-evaluations/h/judge');
    expect(paths.variant('p', 'a', 'v', 1, 2)).toBe('/p/p/apps/a/variants/v?from=1&to=2');
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
    expect(matchRoute(paths.admin('p1', 'scores'))).toEqual({ screen: 'admin', projectId: 'p1', section: 'scores' });
    expect(paths.admin('p1', 'audit', '?action=LOGOUT')).toBe('/p/p1/admin/audit?action=LOGOUT');
    for (const path of ['/p/p1/admin/nothing', '/p/p1/admin/keys/1', '/login/more']) expect(matchRoute(path)).toBeNull();
  });

  it('comes back only to a path of the UI after signing in', () => {
    expect(paths.login('/p/a b/traces?x=1')).toBe('/login?next=%2Fp%2Fa%20b%2Ftraces%3Fx%3D1');
    for (const next of [undefined, '/', '//evil.example', 'https://evil.example', '/login?next=%2F']) expect(paths.login(next)).toBe('/login');
  });
});
