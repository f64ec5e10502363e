// Langfuse's prompts over Assay's variants (docs/deployments.md#langfuse): the prompt named N is
// the prompt variant N of the app N, its versions are the variant's revisions, its labels the
// app's environments that serve one of them (and `latest`, the newest). Creating a version is a
// new revision; setting labels is deploying.
import { promptParameters } from '../apps/inputs.js';
import * as apps from '../apps/operations.js';
import * as deployments from '../apps/deployments.js';
import type { RequestContext } from '../shared/context.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import { asObject } from '../shared/json.js';
import { LATEST, type CreatePromptBody, type ListPromptsQuery } from './inputs.js';
import { LangfuseInvalidRequest, pageOf } from './responses.js';

const allRevisions = { include: { revisions: { orderBy: { revision: 'asc' } } } } as const;

type PromptVariant = Awaited<ReturnType<typeof apps.listVariants<typeof allRevisions>>>[number];
type Revision = PromptVariant['revisions'][number];
interface Deployed {
  name: string;
  revisionId: string | null;
}

/** A text prompt is kept as one user message, marked so it is answered as text again. */
const TEXT_MARK = 'prompt_type';

interface ChatMessage {
  role: string;
  content: string;
}

function promptOf(parameters: Record<string, unknown>) {
  const { messages, [TEXT_MARK]: kind, ...config } = parameters as { messages?: ChatMessage[]; [TEXT_MARK]?: unknown };
  const list = Array.isArray(messages) ? messages : [];
  if (kind === 'text') return { type: 'text' as const, prompt: list[0]?.content ?? '', config };
  return { type: 'chat' as const, prompt: list.map(({ role, content }) => ({ role, content, type: 'chatmessage' as const })), config };
}

function labelsOf(variant: PromptVariant, revision: Pick<Revision, 'id' | 'revision'>, environments: readonly Deployed[]): string[] {
  const labels = environments.filter((env) => env.revisionId === revision.id).map((env) => env.name);
  return revision.revision === variant.revision ? [...labels, LATEST] : labels;
}

function tagsOf(variant: Pick<PromptVariant, 'tags'>): string[] {
  return Array.isArray(variant.tags) ? variant.tags.filter((tag): tag is string => typeof tag === 'string') : [];
}

/** Langfuse's `Prompt` for one revision. */
function promptJson(variant: PromptVariant, revision: Revision, environments: readonly Deployed[]) {
  return {
    id: revision.id,
    name: variant.name,
    version: revision.revision,
    ...promptOf(asObject(revision.parameters)),
    labels: labelsOf(variant, revision, environments),
    tags: tagsOf(variant),
    commitMessage: revision.message,
    resolutionGraph: null,
    projectId: variant.projectId,
    createdBy: 'API',
    createdAt: revision.createdAt.toISOString(),
    updatedAt: revision.createdAt.toISOString(),
  };
}

/** The prompt variant named as its app, with every revision and the app's environments. */
async function findPrompt(ctx: RequestContext, name: string) {
  const [app] = await apps.listApps(ctx, { app_name: name });
  const variant = app && (await apps.listVariants(ctx, app.id, allRevisions)).find((found) => found.name === name && found.kind === 'prompt');
  if (!app || !variant) throw new NotFoundError('Prompt', name);
  return { app, variant, environments: await deployments.listEnvironments(ctx, app.id) };
}

/** One version of a prompt, by number, or the one a label names (`production` by default). */
export async function getPrompt(ctx: RequestContext, name: string, query: { version?: number; label?: string }) {
  const { variant, environments } = await findPrompt(ctx, name);
  const label = query.label ?? 'production';
  let revision: Revision | undefined;
  if (query.version !== undefined) revision = variant.revisions.find((found) => found.revision === query.version);
  else if (label === LATEST) revision = variant.revisions.at(-1);
  else {
    const environment = environments.find((env) => env.name === label);
    revision = variant.revisions.find((found) => found.id === environment?.revisionId);
  }
  if (!revision) throw new NotFoundError('Prompt', query.version === undefined ? `${name} (label ${label})` : `${name} (version ${query.version})`);
  return promptJson(variant, revision, environments);
}

/** The app the prompt lives in, made on its first version. */
async function promptApp(ctx: RequestContext, name: string) {
  try {
    return await apps.createApp(ctx, { app_name: name });
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    return (await apps.listApps(ctx, { app_name: name }))[0];
  }
}

/** A new version: the prompt variant's next revision (its first, with the app, for a new name), deployed to its labels. */
export async function createPrompt(ctx: RequestContext, body: CreatePromptBody) {
  const [found] = await apps.listApps(ctx, { app_name: body.name });
  const existing = found && (await apps.listVariants(ctx, found.id, allRevisions)).find((variant) => variant.name === body.name);
  if (existing && existing.kind !== 'prompt') throw ValidationError.at(['name'], `The variant ${body.name} of app ${body.name} is an endpoint, not a prompt`);
  const previous = existing && asObject(existing.revisions.at(-1)?.parameters);
  const config = body.config ?? {};
  const model = config.model ?? previous?.model;
  if (typeof model !== 'string' || !model) throw ValidationError.at(['config', 'model'], 'Assay runs a prompt with a model: give config.model');
  const messages = typeof body.prompt === 'string' ? [{ role: 'user', content: body.prompt }] : body.prompt.map(({ role, content }) => ({ role, content }));
  const parameters = { ...config, model, messages, ...(body.type === 'text' && { [TEXT_MARK]: 'text' }) };
  // Checked before the app is made, so a refused version leaves nothing behind.
  const checked = promptParameters.safeParse(parameters);
  if (!checked.success) {
    throw new LangfuseInvalidRequest(
      checked.error.issues.map((issue) => ({ path: ['config', ...issue.path.map(String)], message: issue.message, code: issue.code })),
    );
  }
  const app = found ?? (await promptApp(ctx, body.name));
  const message = body.commitMessage ?? null;
  const variant = existing
    ? await apps.updateVariantParameters(ctx, existing.id, { parameters, message })
    : await apps.createVariant(ctx, app.id, { variant_name: body.name, kind: 'prompt', parameters, message });
  if (body.tags) await apps.setVariantTags(ctx, variant.id, body.tags);
  for (const label of new Set(body.labels)) {
    await deployments.deploy(ctx, app.id, label, { variant_id: variant.id, revision: variant.revision }, { create: true });
  }
  return getPrompt(ctx, body.name, { version: variant.revision });
}

/**
 * Moves labels onto a version: each is a deployment of its revision to that environment (an
 * app's own made on the way). A label the version had but `newLabels` leaves out stays.
 */
export async function setPromptLabels(ctx: RequestContext, name: string, version: number, newLabels: readonly string[]) {
  const { app, variant } = await findPrompt(ctx, name);
  if (!variant.revisions.some((found) => found.revision === version)) throw new NotFoundError('Prompt', `${name} (version ${version})`);
  for (const label of new Set(newLabels)) {
    await deployments.deploy(ctx, app.id, label, { variant_id: variant.id, revision: version }, { create: true });
  }
  return getPrompt(ctx, name, { version });
}

/** Langfuse's `PromptMeta` list: every prompt variant named as its app, by name. */
export async function listPrompts(ctx: RequestContext, query: ListPromptsQuery) {
  const found = await apps.listApps(ctx, query.name ? { app_name: query.name } : {}, {
    include: {
      environments: { select: { name: true, revisionId: true } },
      variants: { where: { kind: 'prompt' }, include: { revisions: { orderBy: { revision: 'asc' } } } },
    },
  });
  const prompts = found.flatMap((app) =>
    app.variants
      .filter((variant) => variant.name === app.name)
      .map((variant) => {
        const latest = variant.revisions.at(-1)!;
        const { type, config } = promptOf(asObject(latest.parameters));
        const labels = [...new Set(variant.revisions.flatMap((revision) => labelsOf(variant, revision, app.environments)))];
        return {
          name: variant.name,
          type,
          versions: variant.revisions.map((r) => r.revision),
          labels,
          tags: tagsOf(variant),
          lastUpdatedAt: variant.updatedAt,
          lastConfig: config,
        };
      }),
  );
  const matching = prompts
    .filter(
      (prompt) =>
        (!query.label || prompt.labels.includes(query.label)) &&
        (!query.tag || prompt.tags.includes(query.tag)) &&
        (!query.fromUpdatedAt || prompt.lastUpdatedAt >= query.fromUpdatedAt) &&
        (!query.toUpdatedAt || prompt.lastUpdatedAt < query.toUpdatedAt),
    )
    .sort((a, b) => a.name.localeCompare(b.name));
  const start = (query.page - 1) * query.limit;
  const page = matching.slice(start, start + query.limit).map((prompt) => ({ ...prompt, lastUpdatedAt: prompt.lastUpdatedAt.toISOString() }));
  return pageOf(page, query.page, query.limit, matching.length);
}
