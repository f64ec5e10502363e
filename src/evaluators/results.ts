// The contract's Result (2.2): `{type, value, error}`. Every scorer answers one, and evaluations
// use it for their status, their totals and a variant's output too, so its construction lives in
// one place, with the scorers that make most of them.
import type { Prisma } from '../generated/prisma/client.js';

export interface ResultError {
  message: string;
  stacktrace: string | null;
}

export interface Result {
  type: string;
  value: unknown;
  error: ResultError | null;
}

export function result(type: string, value: unknown, error: ResultError | null = null): Result {
  return { type, value, error };
}

export function errorResult(message: string, stacktrace: string | null = null): Result {
  return { type: 'error', value: null, error: { message, stacktrace } };
}

/** Reads a stored `{message, stacktrace}` Json column back into a ResultError. */
export function storedError(value: Prisma.JsonValue | null): ResultError | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const { message, stacktrace } = value as Record<string, unknown>;
  return {
    message: typeof message === 'string' ? message : message === undefined || message === null ? '' : JSON.stringify(message),
    stacktrace: typeof stacktrace === 'string' ? stacktrace : null,
  };
}
