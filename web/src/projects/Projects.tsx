// Projects (docs/ui.md#administration): the caller's projects, and for an instance administrator
// (or with auth off) a new one, whose first key (every scope) is shown once.
import { useState, type FormEvent } from 'react';
import { graphql, useLazyLoadQuery } from 'react-relay';
import type { ProjectsCreateMutation } from '../__generated__/ProjectsCreateMutation.graphql.ts';
import type { ProjectsQuery } from '../__generated__/ProjectsQuery.graphql.ts';
import type { ProjectsRetentionMutation } from '../__generated__/ProjectsRetentionMutation.graphql.ts';
import { formatTime } from '../format.ts';
import { Field, formText, FormError } from '../components/forms.tsx';
import { Link, paths } from '../router.tsx';
import { Empty, HeadRow } from '../components/states.tsx';
import { retentionText } from './retention.ts';
import { CopyOnce, useActions, useCommit } from '../components/actions.tsx';
import { RetentionForm } from './RetentionForm.tsx';

const query = graphql`
  query ProjectsQuery {
    projects {
      id
      databaseId
      name
      createdAt
      retentionDays
    }
    me {
      user {
        isAdmin
      }
    }
  }
`;

const update = graphql`
  mutation ProjectsRetentionMutation($input: UpdateProjectInput!) {
    updateProject(input: $input) {
      id
      retentionDays
    }
  }
`;

const create = graphql`
  mutation ProjectsCreateMutation($input: CreateProjectInput!) {
    createProject(input: $input) {
      project {
        databaseId
        name
      }
      apiKey {
        key
      }
    }
  }
`;

export function Projects({ projectId }: { projectId: string }) {
  const { fetchKey, error, act } = useActions();
  const { projects, me } = useLazyLoadQuery<ProjectsQuery>(query, {}, { fetchKey, fetchPolicy: 'store-and-network' });
  const [commitCreate, creating] = useCommit<ProjectsCreateMutation>(create);
  const [commitUpdate, updating] = useCommit<ProjectsRetentionMutation>(update);
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  // Only an instance administrator may create projects (docs/access.md#roles); `me` is null with auth off.
  const mayCreate = !me || me.user.isAdmin;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    void act(async () => {
      const answer = await commitCreate({ input: { name: formText(new FormData(formElement), 'name') } });
      setCreated({ name: answer.createProject.project.name, key: answer.createProject.apiKey.key });
      formElement.reset();
    });
  };

  return (
    <>
      {mayCreate ? (
        <form className="admin-form" onSubmit={(event) => void submit(event)} aria-label="New project">
          <h2>New project</h2>
          <div className="inline-fields">
            <Field label="Name" name="name" required error={error?.fields.name} />
            <button type="submit" disabled={creating}>
              Create project
            </button>
          </div>
          <FormError message={error && !error.fields.name ? error.message : null} />
        </form>
      ) : (
        <p className="muted">Only an instance administrator creates projects.</p>
      )}
      {created && <CopyOnce label={`First key of ${created.name}, with every scope`} value={created.key} onDone={() => setCreated(null)} />}
      {projects.length === 0 ? (
        <Empty title="No projects" />
      ) : (
        <table className="admin-table">
          <caption className="visually-hidden">Your projects</caption>
          <HeadRow columns={['Name', 'Id', 'Created', 'Keeps traces']} />
          <tbody>
            {projects.map((project) => (
              <tr key={project.id}>
                <td>
                  <Link to={paths.traces(project.databaseId)} aria-current={project.databaseId === projectId ? 'page' : undefined}>
                    {project.name}
                  </Link>
                </td>
                <td>
                  <code>{project.databaseId}</code>
                </td>
                <td>{formatTime(project.createdAt)}</td>
                <td>
                  {/* Settings change in the project the caller acts in (docs/access.md). */}
                  {project.databaseId === projectId ? (
                    <RetentionForm
                      days={project.retentionDays ?? null}
                      saving={updating}
                      error={error?.fields.retention_days ?? null}
                      onSave={(days) => act(() => commitUpdate({ input: { id: project.id, retentionDays: days } }))}
                    />
                  ) : (
                    retentionText(project.retentionDays ?? null)
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
