// The playground's run as a GraphQL subscription (docs/playground.md#the-operation): a stream of
// pieces of the answer and one last event with what the run cost, over graphql-sse at
// /graphql/stream (what the web UI's Relay environment subscribes with) or Yoga's SSE on /graphql.
import { VariantRevision } from '../apps/graphql.js';
import { TokenUsage } from '../observability/traces/graphql.js';
import { builder } from '../shared/graphql/builder.js';
import { parseInput } from '../shared/validation.js';
import { runPromptInput } from './inputs.js';
import { type PlaygroundEvent, preparePromptRun, runPrompt } from './operations.js';

const RunPromptInput = builder.inputType('RunPromptInput', {
  description: 'A prompt to run in the playground: a saved revision, an edit of one, or an unsaved prompt, with its variables.',
  fields: (t) => ({
    revisionId: t.globalID({
      for: VariantRevision,
      description: "Global id of a prompt variant's revision: run as saved unless `parameters` is given, and named in the trace.",
    }),
    parameters: t.field({
      type: 'JSON',
      description:
        'The prompt: `model`, `messages` with `{{variable}}` or `{column}` placeholders, optional `temperature`, `max_tokens`, `top_p`, `response_format`.',
    }),
    model: t.string({ description: 'Runs the prompt with this model instead of its own ("<provider>/<name>", or an OpenAI model\'s name).' }),
    variables: t.field({ type: 'JSON', description: 'The placeholders’ values, by name; {} when absent.' }),
  }),
});

const PlaygroundRunEvent = builder.objectRef<PlaygroundEvent>('PlaygroundRunEvent').implement({
  description: 'One event of a playground run: a piece of the answer, or (`finished`) its end with what the trace recorded.',
  fields: (t) => ({
    delta: t.string({ description: 'The next piece of the answer; empty in the last event.', resolve: (event) => (event.kind === 'delta' ? event.text : '') }),
    finished: t.boolean({ description: 'Whether this is the last event, with the figures below.', resolve: (event) => event.kind === 'end' }),
    output: t.string({
      nullable: true,
      description: 'The whole answer (so far, when it failed midway); null before the last event.',
      resolve: (event) => (event.kind === 'end' ? event.output : null),
    }),
    error: t.string({
      nullable: true,
      description: 'Why the run failed (what the provider answered, a missing key, the time limit); null when it did not, and before the last event.',
      resolve: (event) => (event.kind === 'end' ? event.error : null),
    }),
    model: t.string({
      nullable: true,
      description: 'The model as the provider reported it; null before the last event.',
      resolve: (event) => (event.kind === 'end' ? event.model : null),
    }),
    tokens: t.field({
      type: TokenUsage,
      nullable: true,
      description: 'The tokens the provider reported; null before the last event or when it reported none.',
      resolve: (event) => (event.kind === 'end' && event.usage ? event.usage : null),
    }),
    cost: t.float({
      nullable: true,
      description: "USD, from the tokens and the project's prices; null before the last event or when the model has no price.",
      resolve: (event) => (event.kind === 'end' ? (event.cost?.cost ?? null) : null),
    }),
    latency: t.float({
      nullable: true,
      description: 'Seconds from the call to the end of the answer; null before the last event.',
      resolve: (event) => (event.kind === 'end' ? event.latency : null),
    }),
    traceId: t.string({
      nullable: true,
      description: 'The trace of the run (environment `playground`), for `trace(traceId:)`; null before the last event.',
      resolve: (event) => (event.kind === 'end' ? event.traceId : null),
    }),
  }),
});

builder.subscriptionField('runPrompt', (t) =>
  t.field({
    type: PlaygroundRunEvent,
    // A run spends the project's provider credit, so it needs what changes things, not `read` (docs/playground.md#access).
    extensions: { scope: 'write' },
    description: "Runs a prompt against its provider with the server's keys and streams the answer; traced in the environment `playground`.",
    args: { input: t.arg({ type: RunPromptInput, required: true, description: 'The prompt and its variables.' }) },
    subscribe: async (_root, args, ctx) => {
      const { revisionId, ...rest } = args.input;
      const input = parseInput(runPromptInput, { ...rest, variables: rest.variables ?? undefined, revision_id: revisionId?.id }, 'body');
      return runPrompt(ctx, await preparePromptRun(ctx, input));
    },
    resolve: (event) => event,
  }),
);
