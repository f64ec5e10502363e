// `npm run assay -- <command>`: administration from the shell, on the database the server uses
// (DATABASE_URL, from the environment or ./.env) and its secret. Run with tsx, which `npm ci`
// installs, so it works in a fresh clone (docs/access.md#the-first-key).
//   keys create --project <name> --scopes read,write[,ingest,admin] [--name <name>]
//     prints a new API key of that project (the default project is made when missing).
//   users create --email <email> [--admin] [--url <public URL>]
//     makes a user without a password and prints a one-time link to set one (docs/access.md#the-first-administrator).
import { parseArgs } from 'node:util';
import { issueApiKey, issuedBySystem } from './auth/keys/operations.js';
import { KeyHasher } from './auth/keys/tokens.js';
import { createUserWithLink } from './auth/users/operations.js';
import { DEFAULT_PROJECT_NAME, ensureDefaultProject, findProjectByName } from './projects/operations.js';
import { ConfigError, isHttpUrl, loadConfig, loadDotEnv } from './shared/config.js';
import { scopes, type Scope } from './shared/context.js';
import { openDatabase, secretKeyPath } from './shared/db.js';
import { ConflictError } from './shared/errors.js';
import { SecretBox } from './shared/secrets.js';
import { email as emailSchema } from './shared/validation.js';

const usage = [
  'usage: npm run assay -- keys create --project <name> --scopes read,write,ingest,admin [--name <key name>]',
  '       npm run assay -- users create --email <email> [--admin] [--url <public URL>]',
].join('\n');

class UsageError extends Error {}

function parseScopes(text: string | undefined): Scope[] {
  const asked = (text ?? '')
    .split(',')
    .map((scope) => scope.trim())
    .filter(Boolean);
  const unknown = asked.filter((scope) => !(scopes as readonly string[]).includes(scope));
  if (asked.length === 0 || unknown.length > 0) {
    throw new UsageError(`--scopes must list some of ${scopes.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`);
  }
  return scopes.filter((scope) => asked.includes(scope));
}

async function createKey(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { project: { type: 'string' }, scopes: { type: 'string' }, name: { type: 'string' } } });
  if (!values.project) throw new UsageError('--project is required');
  const keyScopes = parseScopes(values.scopes);
  loadDotEnv();
  const config = loadConfig();
  const database = await openDatabase({ url: config.DATABASE_URL, poolSize: 1 });
  const { db } = database;
  try {
    if (values.project === DEFAULT_PROJECT_NAME) await ensureDefaultProject(db);
    const project = await findProjectByName(db, values.project);
    if (!project) throw new UsageError(`no project is named ${JSON.stringify(values.project)}; create one with POST /projects (docs/access.md)`);
    const hasher = new KeyHasher(SecretBox.load(config.ASSAY_SECRET_KEY, secretKeyPath(config.DATABASE_URL)));
    const { key } = await db.$transaction((tx) => issueApiKey(tx, hasher, project.id, values.name ?? 'cli', keyScopes, issuedBySystem('cli')));
    // The key alone on stdout, so `KEY=$(npm run -s assay -- keys create …)` works.
    console.log(key);
    console.error(`created an API key in project ${project.name} with scopes ${keyScopes.join(', ')}; it is not shown again`);
  } finally {
    await database.close();
  }
}

async function createUser(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { email: { type: 'string' }, admin: { type: 'boolean' }, url: { type: 'string' } } });
  const email = emailSchema().safeParse(values.email ?? '');
  if (!email.success) throw new UsageError('--email must be an email address');
  loadDotEnv();
  const config = loadConfig();
  const url = values.url ?? `http://localhost:${config.PORT}`;
  if (!isHttpUrl(url)) throw new UsageError('--url must be an http(s) URL, the address people open the service at');
  const { db } = await openDatabase({ url: config.DATABASE_URL });
  try {
    const secrets = SecretBox.load(config.ASSAY_SECRET_KEY, secretKeyPath(config.DATABASE_URL));
    const link = await createUserWithLink(db, secrets, email.data, values.admin ?? false, url);
    // The link alone on stdout, as a key is.
    console.log(link.url);
    console.error(
      `created ${values.admin ? 'the instance administrator' : 'the user'} ${email.data}; the link sets a password once, until ${link.expiresAt.toISOString()}`,
    );
  } finally {
    await db.$disconnect();
  }
}

async function main(argv: string[]): Promise<void> {
  const [group, command, ...rest] = argv;
  if (group === 'keys' && command === 'create') return createKey(rest);
  if (group === 'users' && command === 'create') return createUser(rest);
  throw new UsageError(usage);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const known =
    error instanceof UsageError ||
    error instanceof ConfigError ||
    error instanceof ConflictError ||
    (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  console.error(known ? `${(error as Error).message}\n${usage}` : error);
  process.exit(2);
});
