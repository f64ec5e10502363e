// REST routes of sessions, memberships and password links (docs/access.md#users). The routes of
// signing in (`/auth/*`) are public as far as keys go and read the session themselves, through the
// Authenticator; a project's members and password links need the admin scope.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { RequestContext } from '../../shared/context.js';
import { UnauthorizedError } from '../../shared/errors.js';
import { restRoutes } from '../../shared/http/route.js';
import { Sessions } from './sessions.js';
import { addMemberInput, changeRoleInput, loginInput, setPasswordInput } from './inputs.js';
import { memberJson, memberResponse, passwordLinkResponse, signedInJson, signedInResponse } from './responses.js';
import * as users from './operations.js';

const tag = 'access';

async function signedIn(ctx: RequestContext, userId: string) {
  const found = await users.userWithMemberships(ctx.db, userId);
  // A user deleted between the session's check and this read.
  if (!found) throw new UnauthorizedError('Not signed in: POST /auth/login first', 'session');
  return signedInJson(found);
}

const secure = (req: FastifyRequest) => req.protocol === 'https';

export function userRoutes(app: FastifyInstance): void {
  const rest = restRoutes(app);
  rest.post(
    '/auth/login',
    {
      tag,
      scope: 'public',
      summary: 'Sign in: sets the session cookie',
      description:
        'Sets `assay_session` (HttpOnly, SameSite=Lax, Secure over HTTPS). A wrong email and a wrong password answer the same 401; ' +
        'too many failures for an email or from an address answer 429 with Retry-After (docs/access.md#throttling).',
      body: loginInput,
      response: signedInResponse,
      errors: [401, 429],
      examples: { admin: { email: 'admin@example.com', password: 'a long passphrase' } },
    },
    async (req, { body }, reply) => {
      const { token, userId } = await req.ctx.authenticator.sessions.login(body, req.ctx.origin);
      reply.header('set-cookie', req.ctx.authenticator.sessions.cookie(token, secure(req)));
      return signedIn(req.ctx, userId);
    },
  );
  rest.post(
    '/auth/logout',
    { tag, scope: 'public', summary: 'Sign out: ends the session and clears its cookie', noContent: true },
    async (req, _input, reply) => {
      await req.ctx.authenticator.sessions.logout(Sessions.token(req.headers.cookie), req.ctx.origin);
      reply.header('set-cookie', Sessions.clearedCookie(secure(req)));
    },
  );
  rest.get('/auth/me', { tag, scope: 'public', summary: 'The signed-in user and their projects', response: signedInResponse, errors: [401] }, async (req) =>
    signedIn(req.ctx, (await req.ctx.authenticator.signedIn({ cookie: req.headers.cookie })).userId),
  );
  rest.post(
    '/auth/password',
    {
      tag,
      scope: 'public',
      summary: "Set a password with a password link's token",
      description:
        "The link works once and for 24 hours; setting the password ends the user's sessions. A used, expired or unknown token is a 422 naming `token`.",
      body: setPasswordInput,
      noContent: true,
    },
    (req, { body }) => users.setPasswordByLink(req.ctx.db, req.ctx.secrets, body, req.ctx.origin),
  );
  rest.get(
    '/projects/:project_id/members',
    { tag, scope: 'admin', summary: "A project's members and their roles", response: z.array(memberResponse), errors: [404] },
    async (req, { params }) => (await users.listMembers(req.ctx, params.project_id)).map(memberJson),
  );
  rest.post(
    '/projects/:project_id/members',
    {
      tag,
      scope: 'admin',
      summary: 'Add a user to the project by email, making the user (without a password) when new',
      description: 'A new user sets a password through a password link (`POST /users/{user_id}/password-link`).',
      body: addMemberInput,
      response: memberResponse,
      errors: [404, 409],
      examples: { viewer: { email: 'ana@example.com', role: 'viewer' } },
    },
    async (req, { params, body }) => memberJson(await users.addMember(req.ctx, params.project_id, body)),
  );
  rest.patch(
    '/projects/:project_id/members/:user_id',
    {
      tag,
      scope: 'admin',
      summary: "Change a member's role",
      description: 'Demoting the last admin member of a project is a 409.',
      body: changeRoleInput,
      response: memberResponse,
      errors: [404, 409],
    },
    async (req, { params, body }) => memberJson(await users.changeMemberRole(req.ctx, params.project_id, params.user_id, body.role)),
  );
  rest.delete(
    '/projects/:project_id/members/:user_id',
    {
      tag,
      scope: 'admin',
      summary: 'Remove a member from the project (the user remains)',
      description: 'Removing the last admin member of a project is a 409.',
      noContent: true,
      errors: [404, 409],
    },
    (req, { params }) => users.removeMember(req.ctx, params.project_id, params.user_id),
  );
  rest.post(
    '/users/:user_id/password-link',
    {
      tag,
      scope: 'admin',
      summary: 'Issue a one-time link to set the password of a user',
      description:
        "An instance administrator may for anyone; a project's admin for a member of the project who belongs to no project they do not administer. " +
        'The link works once and for 24 hours.',
      response: passwordLinkResponse,
      errors: [403, 404],
    },
    async (req, { params }) => {
      const link = await users.issuePasswordLink(req.ctx, params.user_id);
      return { url: link.url, expires_at: link.expiresAt };
    },
  );
}
