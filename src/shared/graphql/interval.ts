// The one confidence-interval type: automatic evaluations' aggregates and human evaluations'
// statistics both answer with it.
import { builder } from './builder.js';

export const ConfidenceInterval = builder.objectRef<{ low: number; high: number }>('ConfidenceInterval').implement({
  description: 'A 95% confidence interval.',
  fields: (t) => ({
    low: t.exposeFloat('low', { description: 'The lower bound, in the unit of the estimate.' }),
    high: t.exposeFloat('high', { description: 'The upper bound, in the unit of the estimate.' }),
  }),
});
