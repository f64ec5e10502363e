import { describe, expect, it } from 'vitest';
import { tokenFromHash } from './auth/SetPasswordPage.tsx';
import { fieldErrors, landing, retryAfterWords, type SignedIn } from './session.tsx';

describe('retryAfterWords', () => {
  it("says a 429's Retry-After in words, rounded up", () => {
    expect(retryAfterWords(900)).toBe('15 minutes');
    expect(retryAfterWords(3600)).toBe('1 hour');
    expect(retryAfterWords(3599)).toBe('1 hour');
    expect(retryAfterWords(3660)).toBe('1 hour 1 minute');
    expect(retryAfterWords(7500)).toBe('2 hours 5 minutes');
    expect(retryAfterWords(61)).toBe('2 minutes');
    expect(retryAfterWords(60)).toBe('1 minute');
    expect(retryAfterWords(1)).toBe('1 second');
    expect(retryAfterWords(45)).toBe('45 seconds');
  });

  it('says "a moment" for a missing or senseless header', () => {
    for (const seconds of [Number.NaN, 0, -5, Number.POSITIVE_INFINITY]) expect(retryAfterWords(seconds)).toBe('a moment');
  });
});

describe('fieldErrors', () => {
  it("puts a 422's messages by the field its loc names last", () => {
    expect(
      fieldErrors([
        { loc: ['body', 'password'], msg: 'Too short.', type: 'too_small' },
        { loc: ['body', 'password'], msg: 'Too common.', type: 'value_error' },
        { loc: ['input', 'scopes', 0], msg: 'Unknown scope.', type: 'enum' },
        { loc: [], msg: 'Bad.', type: 'value_error' },
      ]),
    ).toEqual({ password: 'Too short. Too common.', 0: 'Unknown scope.', '': 'Bad.' });
    expect(fieldErrors([])).toEqual({});
  });
});

describe('tokenFromHash', () => {
  it("reads a password link's token from the fragment only", () => {
    expect(tokenFromHash('#token=abc_-1')).toBe('abc_-1');
    expect(tokenFromHash('token=abc')).toBe('abc');
    for (const hash of ['', '#', '#token=', '#other=1']) expect(tokenFromHash(hash)).toBeNull();
  });
});

describe('landing', () => {
  const user = { id: 'u', email: 'a@example.com', name: null, is_admin: false };
  it('opens the project called "default", else the first, else the start page', () => {
    const of = (...names: string[]): SignedIn => ({ user, memberships: names.map((name, index) => ({ project: { id: `p${index}`, name }, role: 'member' })) });
    expect(landing(of('a', 'default'))).toBe('/p/p1/traces');
    expect(landing(of('a', 'b'))).toBe('/p/p0/traces');
    expect(landing(of())).toBe('/');
  });
});
