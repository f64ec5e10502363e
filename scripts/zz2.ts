import { migratePostgres } from '../src/shared/migrate.js';
await migratePostgres('postgresql://postgres@127.0.0.1:5432/pgexp2');
