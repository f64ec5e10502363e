// Members and roles (docs/ui.md#administration): add people by email with a role, change a role,
// remove a member, and issue a one-time link for someone to set their password (no mail server:
// the admin hands it over, docs/access.md#password-links).
import { useState, type FormEvent } from 'react';
import { graphql, useFragment, usePreloadedQuery, useRefetchableFragment } from 'react-relay';
import type { Members_query$key } from '../__generated__/Members_query.graphql.ts';
import type { MembersRow_member$key, Role } from '../__generated__/MembersRow_member.graphql.ts';
import type { MembersAddMutation } from '../__generated__/MembersAddMutation.graphql.ts';
import type { MembersChangeRoleMutation } from '../__generated__/MembersChangeRoleMutation.graphql.ts';
import type { MembersLinkMutation } from '../__generated__/MembersLinkMutation.graphql.ts';
import type { MembersQuery } from '../__generated__/MembersQuery.graphql.ts';
import type { MembersRemoveMutation } from '../__generated__/MembersRemoveMutation.graphql.ts';
import { formatTime } from '../format.ts';
import { Field, formText, FormError } from '../components/forms.tsx';
import { Empty, HeadRow } from '../components/states.tsx';
import { ConfirmButton, CopyOnce, useActions, useCommit } from '../components/actions.tsx';
import type { ScreenProps } from '../entrypoint.ts';
import type { RouteOf } from '../router.tsx';
import type { MembersQueries } from './entrypoints.ts';

const query = graphql`
  query MembersQuery {
    ...Members_query
  }
`;

// A list, not a connection: the API answers every member at once. Read anew after each change.
const listFragment = graphql`
  fragment Members_query on Query @refetchable(queryName: "MembersRefetchQuery") {
    members {
      user {
        id
      }
      ...MembersRow_member
    }
  }
`;

const rowFragment = graphql`
  fragment MembersRow_member on Member {
    role
    createdAt
    user {
      id
      email
      name
      hasPassword
      isAdmin
    }
  }
`;

const add = graphql`
  mutation MembersAddMutation($input: AddMemberInput!) {
    addMember(input: $input) {
      role
    }
  }
`;

const changeRole = graphql`
  mutation MembersChangeRoleMutation($input: ChangeMemberRoleInput!) {
    changeMemberRole(input: $input) {
      role
    }
  }
`;

const remove = graphql`
  mutation MembersRemoveMutation($accountId: ID!) {
    removeMember(accountId: $accountId)
  }
`;

const link = graphql`
  mutation MembersLinkMutation($accountId: ID!) {
    issuePasswordLink(accountId: $accountId) {
      url
      expiresAt
    }
  }
`;

const roles: Role[] = ['ADMIN', 'MEMBER', 'VIEWER'];
const roleName = (role: Role) => role.charAt(0) + role.slice(1).toLowerCase();

const roleOptions = roles.map((role) => (
  <option key={role} value={role}>
    {roleName(role)}
  </option>
));

interface MemberActions {
  onRole: (accountId: string, role: Role) => void;
  onLink: (accountId: string, email: string) => void;
  onRemove: (accountId: string) => void;
}

function MemberRow({ member: memberRef, onRole, onLink, onRemove }: MemberActions & { member: MembersRow_member$key }) {
  const member = useFragment(rowFragment, memberRef);
  return (
    <tr>
      <td>
        {member.user.email}
        {member.user.name && <span className="muted"> ({member.user.name})</span>}
        {member.user.isAdmin && <span className="badge">instance admin</span>}
      </td>
      <td>
        <select aria-label={`Role of ${member.user.email}`} value={member.role} onChange={(event) => onRole(member.user.id, event.target.value as Role)}>
          {roleOptions}
        </select>
      </td>
      <td>{member.user.hasPassword ? 'set' : <span className="muted">not yet</span>}</td>
      <td>{formatTime(member.createdAt)}</td>
      <td className="actions">
        <button type="button" className="secondary" onClick={() => onLink(member.user.id, member.user.email)}>
          Password link
        </button>
        <ConfirmButton
          label="Remove"
          question={`Remove ${member.user.email} from the project?`}
          confirm="Remove member"
          onConfirm={() => onRemove(member.user.id)}
        />
      </td>
    </tr>
  );
}

export function Members({ queries }: ScreenProps<RouteOf<'admin'>, MembersQueries>) {
  const [{ members }, refetch] = useRefetchableFragment(listFragment, usePreloadedQuery<MembersQuery>(query, queries.members) as Members_query$key);
  const { error, act } = useActions(() => refetch({}, { fetchPolicy: 'store-and-network' }));
  const [commitAdd, adding] = useCommit<MembersAddMutation>(add);
  const [commitChange] = useCommit<MembersChangeRoleMutation>(changeRole);
  const [commitRemove] = useCommit<MembersRemoveMutation>(remove);
  const [commitLink] = useCommit<MembersLinkMutation>(link);
  const [passwordLink, setPasswordLink] = useState<{ email: string; url: string; expiresAt: string } | null>(null);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    void act(async () => {
      await commitAdd({ input: { email: formText(form, 'email'), role: formText(form, 'role') as Role } });
      formElement.reset();
    });
  };

  const issueLink = (accountId: string, email: string) =>
    act(async () => {
      const answer = await commitLink({ accountId });
      setPasswordLink({ email, ...answer.issuePasswordLink });
    });

  return (
    <>
      <form className="admin-form" onSubmit={(event) => void submit(event)} aria-label="Add a member">
        <h2>Add a member</h2>
        <div className="inline-fields">
          <Field label="Email" name="email" type="email" required error={error?.fields.email} />
          <div className="field">
            <label htmlFor="new-member-role">Role</label>
            <select id="new-member-role" name="role" defaultValue="MEMBER">
              {roleOptions}
            </select>
          </div>
          <button type="submit" disabled={adding}>
            Add member
          </button>
        </div>
        <p className="muted small">Someone new gets an account without a password: issue them a link to set one.</p>
      </form>
      <FormError message={error && !error.fields.email ? error.message : null} />
      {passwordLink && (
        <CopyOnce
          label={`Password link for ${passwordLink.email}, valid until ${formatTime(passwordLink.expiresAt)}`}
          value={passwordLink.url}
          note="Hand it to them: it works once. A new link can be issued at any time."
          onDone={() => setPasswordLink(null)}
        />
      )}
      {members.length === 0 ? (
        <Empty title="No members yet">Add someone by email above.</Empty>
      ) : (
        <table className="admin-table">
          <caption className="visually-hidden">The project's members</caption>
          <HeadRow columns={['Email', 'Role', 'Password', 'Member since']} actions />
          <tbody>
            {members.map((member) => (
              <MemberRow
                key={member.user.id}
                member={member}
                onRole={(accountId, role) => void act(() => commitChange({ input: { accountId, role } }))}
                onLink={(accountId, email) => void issueLink(accountId, email)}
                onRemove={(accountId) => void act(() => commitRemove({ accountId }))}
              />
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
