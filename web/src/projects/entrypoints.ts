// The projects' entry point (docs/ui.md#routes-and-preloading): the administration's Projects.
import { loadQuery, type PreloadedQuery } from 'react-relay';
import ProjectsQueryNode, { type ProjectsQuery } from '../__generated__/ProjectsQuery.graphql.ts';
import { entryPoint } from '../entrypoint.ts';

export interface ProjectsQueries {
  [name: string]: PreloadedQuery<ProjectsQuery>;
  projects: PreloadedQuery<ProjectsQuery>;
}

export const projects = entryPoint(
  async () => (await import('./Projects.tsx')).Projects,
  (environment): ProjectsQueries => ({ projects: loadQuery<ProjectsQuery>(environment, ProjectsQueryNode, {}, { fetchPolicy: 'store-and-network' }) }),
);
