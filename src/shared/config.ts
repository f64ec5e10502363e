// The service's settings, read from the environment (and ./.env when present) once at start and
// validated, so a bad value stops the start with a message naming the variable.
import { existsSync } from 'node:fs';
import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);

const configSchema = z.object({
  PORT: port.default(8000),
  HOST: z.string().min(1).default('127.0.0.1'),
  OTLP_GRPC_PORT: port.default(4317),
  DATABASE_URL: z
    .string()
    .default('file:./data/assay.db')
    .refine((url) => url.startsWith('file:'), {
      message: 'only SQLite ("file:<path>") is supported so far',
    }),
  /** Unset: off on a loopback HOST, on elsewhere (docs/access.md#modes). */
  ASSAY_AUTH: z.enum(['on', 'off']).optional(),
  /** A key with exactly this value and every scope is kept on the default project (docs/access.md). */
  ASSAY_INIT_API_KEY: z.string().min(20, 'must be at least 20 characters, e.g. from `openssl rand -hex 24`').optional(),
  /** Requests (ingest: spans) per minute per API key; 0 for no limit (docs/access.md#rate-limits). */
  ASSAY_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(0),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Unset: pretty on a terminal, JSON lines otherwise (docs/logging.md). */
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024),
  /** How long receiving a request (headers and body) and its headers alone may take (408 beyond). */
  REQUEST_TIMEOUT_SECONDS: z.coerce.number().positive().default(60),
  HEADERS_TIMEOUT_SECONDS: z.coerce.number().positive().default(30),
  /** How long one call of a variant (an endpoint, or a model for a prompt variant) may take. */
  VARIANT_TIMEOUT_SECONDS: z.coerce.number().positive().default(60),
  /** A running evaluation whose worker stops renewing this lease is resumed by another start. */
  EVALUATION_LEASE_SECONDS: z.coerce.number().positive().default(30),
  /** Seals provider keys kept during a run (secrets.ts); unset, a key is kept beside the database. */
  ASSAY_SECRET_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex digits (32 bytes), e.g. from `openssl rand -hex 32`')
    .optional(),
});

/** `<PROVIDER>_API_KEY` and `<PROVIDER>_BASE_URL` variables: model providers' credentials. */
export const providerSettingName = /^[A-Z][A-Z0-9]*_(API_KEY|BASE_URL)$/;

export type Config = z.infer<typeof configSchema> & {
  /** The provider settings found in the environment (OPENAI_API_KEY, MISTRAL_BASE_URL, …). */
  providerEnv: Record<string, string>;
};

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const providerEnv = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => providerSettingName.test(entry[0]) && !!entry[1]));
  return { ...parsed.data, providerEnv };
}

/** Loads ./.env into process.env without overriding variables already set. */
export function loadDotEnv(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path);
}
