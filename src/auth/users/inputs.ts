// Inputs of logins, memberships and password links (docs/access.md#users). REST and GraphQL
// validate with these.
import { z } from 'zod';
import { email, password } from '../../shared/validation.js';

/** A user's role in a project (docs/access.md#roles). */
export const roles = ['admin', 'member', 'viewer'] as const;
export type Role = (typeof roles)[number];

export const roleInput = z.enum(roles);

// A login's password is checked against the stored one, not the policy: a wrong one is a 401 like any other.
export const loginInput = z.object({ email: email(), password: z.string().min(1).max(1024) });

export const addMemberInput = z.object({ email: email(), role: roleInput });

export const changeRoleInput = z.object({ role: roleInput });

export const setPasswordInput = z.object({ token: z.string().min(1).max(200), password: password() });
