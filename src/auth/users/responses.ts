// REST answers of users, sessions and memberships (docs/access.md#users) and the functions that
// shape rows into them. No answer carries a password, its hash, or a session's token (that goes
// in the cookie only).
import { z } from 'zod';
import { timestamp } from '../../shared/http/openapi.js';
import { projectJson, projectResponse } from '../../projects/responses.js';
import { roles } from './inputs.js';
import type { MemberRow, MembershipRow, UserRow } from './operations.js';

const role = z.enum(roles).describe('admin: everything in the project; member: read, write and ingest; viewer: read');

export const userResponse = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    is_admin: z.boolean().describe('An instance administrator: reaches every project as its admin'),
    has_password: z.boolean().describe('False until the user sets one through a password link'),
    created_at: timestamp(),
  })
  .meta({ id: 'User' });

export const signedInResponse = z
  .object({
    user: userResponse,
    memberships: z.array(z.object({ project: projectResponse, role }).meta({ id: 'Membership' })).describe("The user's projects, by name"),
  })
  .meta({ id: 'SignedIn' });

export const memberResponse = z
  .object({
    user_id: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    role,
    has_password: z.boolean().describe('False until the user sets one through a password link'),
    created_at: timestamp().describe('When the user joined the project'),
  })
  .meta({ id: 'Member' });

export const passwordLinkResponse = z
  .object({
    url: z.string().describe('Open it to set the password; it works once. The token is in the fragment, which browsers never send to a server'),
    expires_at: timestamp(),
  })
  .meta({ id: 'PasswordLink' });

export function userJson(user: UserRow) {
  return { id: user.id, email: user.email, name: user.name, is_admin: user.isAdmin, has_password: user.passwordHash !== null, created_at: user.createdAt };
}

export function memberJson(member: MemberRow) {
  const { user } = member;
  return { user_id: user.id, email: user.email, name: user.name, role: member.role, has_password: user.passwordHash !== null, created_at: member.createdAt };
}

export function signedInJson({ user, memberships }: { user: UserRow; memberships: MembershipRow[] }) {
  return { user: userJson(user), memberships: memberships.map(({ project, role }) => ({ project: projectJson(project), role })) };
}
