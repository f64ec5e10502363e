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
  ASSAY_AUTH: z.enum(['on', 'off']).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  MAX_BODY_BYTES: z.coerce.number().int().positive().default(10 * 1024 * 1024),
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_BASE_URL: z.url().default('https://api.openai.com/v1'),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** Loads ./.env into process.env without overriding variables already set. */
export function loadDotEnv(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path);
}
