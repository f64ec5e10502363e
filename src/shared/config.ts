// The service's settings, read from the environment (and ./.env when present) once at start and
// validated, so a bad value stops the start with a message naming the variable.
import { existsSync } from 'node:fs';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { email, password } from './validation.js';

/** A comma-separated list, each entry trimmed and checked by `entry`; blank entries are left out. */
const list = (entry: z.ZodType<string, string>) =>
  z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean),
    )
    .pipe(z.array(entry));

/** `https://app.example.com` (scheme, host, port; no path), kept as the browser sends it in `Origin`. */
const origin = z
  .string()
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol) && new URL(value).origin === value.replace(/\/$/, ''), {
    message: 'each origin must be a scheme, host and optional port, e.g. https://app.example.com',
  })
  .transform((value) => new URL(value).origin);

const hostPattern = /^(\[[0-9a-fA-F:.]+\]|[0-9a-fA-F:]*:[0-9a-fA-F:.]*|[A-Za-z0-9._-]+)$/;
const unbracket = (value: string) => value.toLowerCase().replace(/^\[(.*)\]$/, '$1');

/** A host name or IP address, without a port (`localhost`, `assay.internal`, `10.0.0.5`, `::1`). */
const hostName = z.string().regex(hostPattern, 'each entry must be a host name or IP address without scheme or port').transform(unbracket);

/** A host name, an IP address or a CIDR range (`10.0.0.0/8`, `fd00::/8`). */
const hostOrCidr = z
  .string()
  .refine(
    (value) => (value.includes('/') ? ipaddr.isValidCIDR(value) : hostPattern.test(value)),
    'each entry must be a host name, an IP address or a CIDR such as 10.0.0.0/8',
  )
  .transform(unbracket);

const port = z.coerce.number().int().min(0).max(65535);

/**
 * Fastify's `trustProxy`: `true` (any proxy), a number of hops, or the proxies' addresses and
 * CIDRs; unset or `false`: X-Forwarded-* are not read (docs/access.md#sessions).
 */
const trustProxy = z
  .string()
  .optional()
  .transform((value, ctx): boolean | number | string[] => {
    const text = value?.trim() ?? '';
    if (text === '' || text === 'false') return false;
    if (text === 'true') return true;
    if (/^\d+$/.test(text)) return Number(text);
    const entries = text
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean);
    const bad = entries.filter((entry) => !(entry.includes('/') ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry)));
    if (bad.length > 0) {
      ctx.addIssue({ code: 'custom', message: 'must be true, false, a number of proxies, or comma-separated addresses and CIDRs of the proxies' });
      return z.NEVER;
    }
    return entries;
  });

/** The longest retention a project or the instance may set: ten years. */
export const MAX_RETENTION_DAYS = 3650;

const configSchema = z.object({
  PORT: port.default(8000),
  HOST: z.string().min(1).default('127.0.0.1'),
  OTLP_GRPC_PORT: port.default(4317),
  /** `file:<path>` (SQLite) or `postgresql://user@host:port/database` (docs/database.md). */
  DATABASE_URL: z
    .string()
    .default('file:./data/assay.db')
    .refine((url) => url.startsWith('file:') || (/^postgres(ql)?:\/\//.test(url) && URL.canParse(url)), {
      message: 'must be "file:<path>" (SQLite) or "postgresql://user@host:port/database"',
    }),
  /** Connections each instance opens to PostgreSQL (docs/database.md#running-on-postgresql). */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
  /** Unset: off on a loopback HOST, on elsewhere (docs/access.md#modes). */
  ASSAY_AUTH: z.enum(['on', 'off']).optional(),
  /** A key with exactly this value and every scope is kept on the default project (docs/access.md). */
  ASSAY_INIT_API_KEY: z.string().min(20, 'must be at least 20 characters, e.g. from `openssl rand -hex 24`').optional(),
  /** The first instance administrator, made at start when no user exists (docs/access.md#the-first-administrator). */
  ASSAY_INIT_ADMIN_EMAIL: email().optional(),
  ASSAY_INIT_ADMIN_PASSWORD: password().optional(),
  /** How long a login lasts (docs/access.md#sessions). */
  ASSAY_SESSION_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 366)
    .default(24 * 7),
  /** Failed logins before an email, or an address, is refused for a while (docs/access.md#throttling). */
  ASSAY_LOGIN_FAILURES_PER_EMAIL: z.coerce.number().int().positive().default(10),
  ASSAY_LOGIN_FAILURES_PER_IP: z.coerce.number().int().positive().default(100),
  /** Whether X-Forwarded-For/-Proto are believed, and from whom (docs/access.md#sessions). */
  ASSAY_TRUST_PROXY: trustProxy,
  /** Requests (ingest: spans) per minute per API key; 0 for no limit (docs/access.md#rate-limits). */
  ASSAY_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(0),
  /** Origins granted CORS, and allowed to send state-changing requests from a browser (docs/access.md#browsers). */
  ASSAY_CORS_ORIGINS: list(origin),
  /** Host names served besides the loopback ones (auth off), or the only ones (auth on) (docs/access.md#browsers). */
  ASSAY_ALLOWED_HOSTS: list(hostName),
  /** Hosts and CIDRs outbound calls may reach although private (docs/access.md#outbound-calls). */
  ASSAY_OUTBOUND_ALLOW: list(hostOrCidr),
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
  /** Child processes running Python code evaluators, each with a ready interpreter (docs/evaluators.md#python-sandbox). */
  PYTHON_SANDBOX_PROCESSES: z.coerce.number().int().min(1).max(64).default(2),
  /** A running evaluation whose worker stops renewing this lease is resumed by another instance or start (docs/operations.md#several-instances). */
  EVALUATION_LEASE_SECONDS: z.coerce.number().positive().default(30),
  /** The hard time limit of one online evaluator call (docs/online-evaluation.md#jobs). */
  ONLINE_EVALUATION_TIMEOUT_SECONDS: z.coerce.number().positive().default(60),
  /** Online evaluation jobs run at once by this process. */
  ONLINE_EVALUATION_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  /** Jobs waiting (pending or running) beyond which new ones are skipped as backlog_full. */
  ONLINE_EVALUATION_MAX_PENDING_JOBS: z.coerce.number().int().min(1).default(100_000),
  /** How long after its creation a job keeps retrying transient failures without using attempts. */
  ONLINE_EVALUATION_RETRY_DEADLINE_SECONDS: z.coerce
    .number()
    .positive()
    .default(24 * 3600),
  /** The first wait before a failed job is tried again; doubled each time (with jitter) up to 5 minutes. */
  ONLINE_EVALUATION_BACKOFF_SECONDS: z.coerce.number().positive().default(1),
  /** Attempts of a job whose evaluator fails for another reason, before it ends ERROR. */
  ONLINE_EVALUATION_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
  /** Days a project's traces are kept when the project sets none; unset: forever (docs/observability.md#retention). */
  ASSAY_RETENTION_DAYS: z.coerce.number().int().min(1).max(MAX_RETENTION_DAYS).optional(),
  /** Seconds between two retention sweeps (docs/observability.md#retention). */
  ASSAY_RETENTION_INTERVAL_SECONDS: z.coerce.number().positive().default(300),
  /** Seals provider keys kept during a run (secrets.ts); unset, a key is kept beside the database. */
  ASSAY_SECRET_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex digits (32 bytes), e.g. from `openssl rand -hex 32`')
    .optional(),
});

/** Checks across variables, made after each has parsed. */
const checkedConfig = configSchema.superRefine((config, ctx) => {
  // The first administrator needs both an email and a password; one alone is a mistake.
  if ((config.ASSAY_INIT_ADMIN_EMAIL === undefined) !== (config.ASSAY_INIT_ADMIN_PASSWORD === undefined)) {
    const missing = config.ASSAY_INIT_ADMIN_EMAIL === undefined ? 'ASSAY_INIT_ADMIN_EMAIL' : 'ASSAY_INIT_ADMIN_PASSWORD';
    ctx.addIssue({ code: 'custom', path: [missing], message: 'ASSAY_INIT_ADMIN_EMAIL and ASSAY_INIT_ADMIN_PASSWORD go together: set both or neither' });
  }
  // Instances on one PostgreSQL share no disk: the key that seals secrets must come from the environment.
  if (!config.DATABASE_URL.startsWith('file:') && config.ASSAY_SECRET_KEY === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['ASSAY_SECRET_KEY'],
      message: 'is required with a PostgreSQL DATABASE_URL (every instance must use the same key), e.g. from `openssl rand -hex 32`',
    });
  }
});

/** Whether `value` is an absolute http(s) URL: what a provider's base URL must be. */
export function isHttpUrl(value: string): boolean {
  return URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
}

/** `<PROVIDER>_API_KEY` and `<PROVIDER>_BASE_URL` variables: model providers' credentials. */
export const providerSettingName = /^[A-Z][A-Z0-9]*_(API_KEY|BASE_URL)$/;

export type Config = z.infer<typeof configSchema> & {
  /** The provider settings found in the environment (OPENAI_API_KEY, MISTRAL_BASE_URL, …). */
  providerEnv: Record<string, string>;
};

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = checkedConfig.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const providerEnv = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => providerSettingName.test(entry[0]) && !!entry[1]));
  const badBaseUrls = Object.entries(providerEnv).filter(([name, value]) => name.endsWith('_BASE_URL') && !isHttpUrl(value));
  if (badBaseUrls.length > 0) {
    throw new ConfigError(`invalid configuration:\n${badBaseUrls.map(([name]) => `  ${name}: must be an http or https URL`).join('\n')}`);
  }
  return { ...parsed.data, providerEnv };
}

/** Loads ./.env into process.env without overriding variables already set. */
export function loadDotEnv(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path);
}
