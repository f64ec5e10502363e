// Prisma's Json columns type as JsonValue; REST and GraphQL shapes want plain objects.
import type { Prisma } from '../generated/prisma/client.js';

export type JsonObject = Record<string, unknown>;

export function asObject(value: Prisma.JsonValue | null | undefined): JsonObject {
  return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

export function asArray<T = unknown>(value: Prisma.JsonValue | null | undefined): T[] {
  return Array.isArray(value) ? (value as T[]) : [];
}

/** A value for a Json column (Prisma wants its own input type). */
export function toJson(value: unknown): Prisma.InputJsonValue {
  return value as Prisma.InputJsonValue;
}
