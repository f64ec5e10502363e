// REST answers of users, sessions and memberships (docs/access.md#users). No answer carries a
// password, its hash, or a session's token (that goes in the cookie only).
import { z } from 'zod';
import { timestamp } from '../shared/http/openapi.js';
import { projectResponse } from './responses.js';
import { roles } from './user-inputs.js';

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
