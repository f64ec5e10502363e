// GraphQL of users and memberships (docs/access.md#users), calling the same operations as REST.
// A User is an Assay account; arguments naming one are `accountId`, never `userId`, which
// names an app's end user in traces (docs/graphql.md#ids).
// Signing in and out are REST's alone (`/auth/login`, `/auth/logout`): they set and clear a
// cookie, which is an HTTP matter. A session names its project with the X-Assay-Project header
// here too. Managing members needs the admin scope (`extensions.scope`, src/graphql/scopes.ts).
import { encodeGlobalID } from '@pothos/plugin-relay';
import { NotFoundError } from '../../shared/errors.js';
import { builder } from '../../shared/graphql/builder.js';
import { inIdOrder } from '../../shared/graphql/ids.js';
import { upperCaseValues } from '../../shared/graphql/names.js';
import { parseInput } from '../../shared/validation.js';
import { Project } from '../../projects/graphql.js';
import { addMemberInput, changeRoleInput, roles, type Role } from './inputs.js';
import * as users from './operations.js';

const admin = { scope: 'admin' };

const RoleEnum = builder.enumType('Role', {
  description: "A user's role in a project (docs/access.md#roles).",
  values: upperCaseValues(roles, {
    admin: 'Everything in the project, its keys and members included.',
    member: 'Reading, writing and sending spans.',
    viewer: 'Reading only.',
  }),
});

const Membership = builder.objectRef<users.MembershipRow>('Membership').implement({
  description: 'A project the user belongs to, and their role there.',
  fields: (t) => ({
    project: t.field({ type: Project, description: 'The project.', resolve: (row) => row.project }),
    role: t.field({ type: RoleEnum, description: 'What the user may do there.', resolve: (row) => row.role as Role }),
  }),
});

const User = builder.node(builder.objectRef<users.UserRow>('User'), {
  description: "An Assay account: a person who signs in with an email and a password (not the `userId` of traces, an app's end user).",
  id: { resolve: (user) => user.id },
  loadMany: async (ids, ctx) => inIdOrder(ids, await users.findUsers(ctx, ids)),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    email: t.exposeString('email', { description: 'The email the user signs in with, lower case.' }),
    name: t.exposeString('name', { nullable: true, description: 'A name for people, when given.' }),
    isAdmin: t.exposeBoolean('isAdmin', { description: 'An instance administrator: reaches every project as its admin.' }),
    hasPassword: t.boolean({ description: 'False until the user sets one through a password link.', resolve: (user) => user.passwordHash !== null }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the user was made.' }),
  }),
});

const Me = builder.objectRef<NonNullable<Awaited<ReturnType<typeof users.userWithMemberships>>>>('Me').implement({
  description: 'The signed-in user and the projects they belong to (REST `GET /auth/me`).',
  fields: (t) => ({
    user: t.field({ type: User, description: 'The user.', resolve: ({ user }) => user }),
    memberships: t.field({ type: [Membership], description: 'Their projects, by name.', resolve: ({ memberships }) => memberships }),
  }),
});

const Member = builder.objectRef<users.MemberRow>('Member').implement({
  description: "A user's membership of the caller's project.",
  fields: (t) => ({
    user: t.field({ type: User, description: 'The user.', resolve: (row) => row.user }),
    role: t.field({ type: RoleEnum, description: 'What they may do in the project.', resolve: (row) => row.role as Role }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When they joined the project.' }),
  }),
});

const PasswordLink = builder.objectRef<{ url: string; expiresAt: Date }>('PasswordLink').implement({
  description: 'A one-time link to set a password (docs/access.md#password-links).',
  fields: (t) => ({
    url: t.exposeString('url', { description: 'Open it to set the password; it works once. The token is in its fragment.' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', description: 'When it stops working.' }),
  }),
});

const AddMemberInput = builder.inputType('AddMemberInput', {
  description: 'A user to add to the project (REST: the body of `POST /projects/{project_id}/members`).',
  fields: (t) => ({
    email: t.string({ required: true, description: 'Their email; a new one makes a user without a password.' }),
    role: t.field({ type: RoleEnum, required: true, description: 'Their role in the project.' }),
  }),
});

const ChangeMemberRoleInput = builder.inputType('ChangeMemberRoleInput', {
  description: "A member's new role (REST: `PATCH /projects/{project_id}/members/{user_id}`).",
  fields: (t) => ({
    accountId: t.globalID({ required: true, description: "The global id of the member's User (REST: `{user_id}` in the path)." }),
    role: t.field({ type: RoleEnum, required: true, description: 'Their new role.' }),
  }),
});

/** A User's id from a global id; another type's names no user. */
function accountId(id: { typename: string; id: string }): string {
  if (id.typename !== 'User') throw new NotFoundError('user', id.id);
  return id.id;
}

builder.queryFields((t) => ({
  me: t.field({
    type: Me,
    nullable: true,
    description: 'The signed-in user of a session and their projects; null for an API key (and with auth off).',
    extensions: { instanceWide: true },
    resolve: (_root, _args, ctx) => {
      const { actor } = ctx.principal;
      return actor.type === 'user' && actor.id ? users.userWithMemberships(ctx.db, actor.id) : null;
    },
  }),
  members: t.field({
    type: [Member],
    description: "The caller's project's members by email (needs the admin scope).",
    extensions: admin,
    resolve: (_root, _args, ctx) => users.listMembers(ctx, ctx.projectId),
  }),
}));

builder.mutationFields((t) => ({
  addMember: t.field({
    type: Member,
    description: "Adds a user to the caller's project by email, making the user when new (needs the admin scope).",
    extensions: admin,
    args: { input: t.arg({ type: AddMemberInput, required: true, description: 'The user and role.' }) },
    resolve: (_root, args, ctx) => users.addMember(ctx, ctx.projectId, parseInput(addMemberInput, args.input, 'body')),
  }),
  changeMemberRole: t.field({
    type: Member,
    description: "Changes a member's role; demoting the last admin is a CONFLICT (needs the admin scope).",
    extensions: admin,
    args: { input: t.arg({ type: ChangeMemberRoleInput, required: true, description: 'The member and role.' }) },
    resolve: (_root, { input }, ctx) => {
      const { role } = parseInput(changeRoleInput, { role: input.role }, 'body');
      return users.changeMemberRole(ctx, ctx.projectId, accountId(input.accountId), role);
    },
  }),
  removeMember: t.field({
    type: 'ID',
    description: "Removes a member from the caller's project (the user remains); answers the user's id (needs the admin scope).",
    extensions: admin,
    args: { accountId: t.arg.globalID({ required: true, description: "The global id of the member's User." }) },
    resolve: async (_root, args, ctx) => {
      await users.removeMember(ctx, ctx.projectId, accountId(args.accountId));
      return encodeGlobalID('User', args.accountId.id);
    },
  }),
  issuePasswordLink: t.field({
    type: PasswordLink,
    description: 'A one-time link to set the password of a user, valid 24 hours (needs the admin scope; docs/access.md#password-links).',
    extensions: admin,
    args: { accountId: t.arg.globalID({ required: true, description: 'The global id of the User.' }) },
    resolve: (_root, args, ctx) => users.issuePasswordLink(ctx, accountId(args.accountId)),
  }),
}));
