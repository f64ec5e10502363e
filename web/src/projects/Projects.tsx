// Projects (docs/ui.md#administration): the caller's projects, and for an instance administrator
// (or with auth off) a new one, whose first key (every scope) is shown once.
import { useState, type FormEvent } from 'react';
import { graphql, useFragment, usePreloadedQuery, useRefetchableFragment } from 'react-relay';
import type { Projects_query$key } from '../__generated__/Projects_query.graphql.ts';
import type { ProjectsCreateMutation } from '../__generated__/ProjectsCreateMutation.graphql.ts';
import type { ProjectsQuery } from '../__generated__/ProjectsQuery.graphql.ts';
import type { ProjectsRow_project$key } from '../__generated__/ProjectsRow_project.graphql.ts';
import type { ProjectsRetentionMutation } from '../__generated__/ProjectsRetentionMutation.graphql.ts';
import { formatTime } from '../format.ts';
import { Field, formText, FormError } from '../components/forms.tsx';
import { Link, paths } from '../router.tsx';
import { Empty, HeadRow } from '../components/states.tsx';
import { retentionText } from './retention.ts';
import { CopyOnce, useActions, useCommit } from '../components/actions.tsx';
import { RetentionForm } from './RetentionForm.tsx';
import type { ScreenProps } from '../entrypoint.ts';
import type { RouteOf } from '../router.tsx';
import type { ProjectsQueries } from './entrypoints.ts';

const query = graphql`
  query ProjectsQuery {
    ...Projects_query
  }
`;

// A list, not a connection: the API answers every project of the caller at once. Read anew after
// each change; `me` says whether the caller may create one.
const listFragment = graphql`
  fragment Projects_query on Query @refetchable(queryName: "ProjectsRefetchQuery") {
    projects {
      id
      ...ProjectsRow_project
    }
    me {
      user {
        isAdmin
      }
    }
  }
`;

const rowFragment = graphql`
  fragment ProjectsRow_project on Project {
    id
    databaseId
    name
    createdAt
    retentionDays
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

interface RowProps {
  project: ProjectsRow_project$key;
  /** The project on screen, whose retention is edited in place (settings change in the project the caller acts in, docs/access.md). */
  projectId: string;
  updating: boolean;
  error: string | null;
  onRetention: (id: string, days: number | null) => void;
}

function ProjectRow({ project: projectRef, projectId, updating, error, onRetention }: RowProps) {
  const project = useFragment(rowFragment, projectRef);
  return (
    <tr>
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
        {project.databaseId === projectId ? (
          <RetentionForm days={project.retentionDays ?? null} saving={updating} error={error} onSave={(days) => onRetention(project.id, days)} />
        ) : (
          retentionText(project.retentionDays ?? null)
        )}
      </td>
    </tr>
  );
}

export function Projects({ route: { projectId }, queries }: ScreenProps<RouteOf<'admin'>, ProjectsQueries>) {
  const [{ projects, me }, refetch] = useRefetchableFragment(listFragment, usePreloadedQuery<ProjectsQuery>(query, queries.projects) as Projects_query$key);
  const { error, act } = useActions(() => refetch({}, { fetchPolicy: 'store-and-network' }));
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
              <ProjectRow
                key={project.id}
                project={project}
                projectId={projectId}
                updating={updating}
                error={error?.fields.retention_days ?? null}
                onRetention={(id, days) => void act(() => commitUpdate({ input: { id, retentionDays: days } }))}
              />
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
