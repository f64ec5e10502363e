// auto_semantic_similarity: the cosine similarity of the embeddings of the output and of the
// ground truth, both embedded in one call of the configured model. Edge cases in ../scoring.ts.
import { result } from '../results.js';
import { ScoringFault, guarded, requireGroundTruth, toText } from './common.js';
import { askProvider, modelSetting, providersOf } from './critique.js';

export const DEFAULT_EMBEDDING_MODEL = 'text-embedding-3-small';

/** cos(a, b); undefined when a vector is all zeros or their lengths differ. */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number | undefined {
  if (a.length !== b.length || a.length === 0) return undefined;
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    normA += a[i] * a[i];
    normB += b[i] * b[i];
  }
  if (normA === 0 || normB === 0) return undefined;
  // Rounding can take it a hair past ±1.
  return Math.max(-1, Math.min(1, dot / Math.sqrt(normA * normB)));
}

export const semanticSimilarity = guarded(async (settings, scoringCase, context) => {
  const truth = toText(requireGroundTruth(settings, scoringCase));
  const output = toText(scoringCase.output);
  // Embedding APIs refuse empty texts; an empty side has no meaning to compare.
  if (output.trim() === '') throw new ScoringFault('The output is empty: there is nothing to embed');
  if (truth.trim() === '') throw new ScoringFault('The expected answer is empty: there is nothing to embed');
  const providers = providersOf(context);
  const model = modelSetting(settings, DEFAULT_EMBEDDING_MODEL);
  const { vectors } = await askProvider(`The embedding model ${model}`, () => providers.embed(model, [output, truth]));
  const similarity = cosineSimilarity(vectors[0], vectors[1]);
  if (similarity === undefined) {
    throw new ScoringFault(`The embeddings of ${model} cannot be compared (lengths ${vectors[0].length} and ${vectors[1].length}, or a zero vector)`);
  }
  return result('number', similarity);
});
