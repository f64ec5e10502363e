// Projects are the tenants (docs/resources.md). Until API keys exist every caller acts in the
// default one.
import type { Db } from '../shared/db.js';

export const DEFAULT_PROJECT_NAME = 'default';

/** The default project's id, creating the project on first start. */
export async function ensureDefaultProject(db: Db): Promise<string> {
  const project = await db.project.upsert({
    where: { name: DEFAULT_PROJECT_NAME },
    create: { name: DEFAULT_PROJECT_NAME },
    update: {},
    select: { id: true },
  });
  return project.id;
}
