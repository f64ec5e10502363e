import { describe, expect, it } from 'vitest';
import { actionName, auditActions, auditVariables, detailsText } from './audit.ts';

describe('the audit log', () => {
  it('names every action as REST does (docs/access.md#audit)', () => {
    expect(auditActions.map(actionName)).toEqual([
      'api_key.created',
      'api_key.revoked',
      'login.failed',
      'login.succeeded',
      'logout',
      'membership.added',
      'membership.removed',
      'membership.role_changed',
      'password_link.issued',
      'password.set',
      'project.created',
      'project.updated',
      'user.created',
      'user.updated',
    ]);
  });

  it('shows details for people', () => {
    expect(detailsText({ name: 'ci', scopes: ['read', 'ingest'], expires_at: '2026-01-01' })).toBe('name: ci; scopes: read, ingest; expires at: 2026-01-01');
    expect(detailsText({ before: { role: 'viewer' } })).toBe('before: {"role":"viewer"}');
    expect(detailsText(null)).toBe('');
    expect(detailsText([1, 2])).toBe('[1,2]');
  });

  it('reads the page from the URL, ignoring an unknown action', () => {
    expect(auditVariables('')).toEqual({ action: null, first: 50, after: null });
    expect(auditVariables('?action=LOGOUT&after=c1')).toEqual({ action: 'LOGOUT', first: 50, after: 'c1' });
    expect(auditVariables('?action=DROP_TABLES&before=c2')).toEqual({ action: null, last: 50, before: 'c2' });
  });
});
