// What the Langfuse client tests share: a call's refusal, checked to be the SDK's own error.
import { LangfuseAPIError } from '@langfuse/core';
import { expect } from 'vitest';

/** The LangfuseAPIError a call fails with (its statusCode and body are Assay's answer). */
export async function refusal(call: Promise<unknown>): Promise<LangfuseAPIError> {
  const error = await call.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(LangfuseAPIError);
  return error as LangfuseAPIError;
}
