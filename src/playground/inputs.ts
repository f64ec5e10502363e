// What a playground run takes (docs/playground.md#the-operation), named as REST names things so a
// fault's `loc` reads as elsewhere: ["body", "parameters", "messages", 0, "content"].
import { z } from 'zod';
import { promptParameters } from '../apps/inputs.js';
import { jsonObject, name } from '../shared/validation.js';

export const runPromptInput = z
  .object({
    revision_id: z.string().min(1).nullish().describe("A prompt variant's revision to run; its parameters unless `parameters` is given"),
    parameters: promptParameters.nullish().describe('The prompt to run (unsaved, or an edit of the revision): `model`, `messages`, optional settings'),
    model: name().max(255).nullish().describe('Runs the prompt with this model instead of its own ("<provider>/<name>", or an OpenAI model)'),
    variables: jsonObject().default({}).describe('The values of its `{{variable}}` and `{column}` placeholders'),
  })
  .superRefine((input, ctx) => {
    if (!input.revision_id && !input.parameters) {
      ctx.addIssue({ code: 'custom', path: ['parameters'], message: 'Field required: give parameters, a revision_id, or both', params: { type: 'missing' } });
    }
  });

export type RunPromptInput = z.output<typeof runPromptInput>;
