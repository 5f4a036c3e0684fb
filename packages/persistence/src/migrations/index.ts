import { InitialSchema1763769600000 } from './1763769600000-InitialSchema';

/** Every migration, oldest first: one history for SQLite and Postgres. */
export const MIGRATIONS = [InitialSchema1763769600000];
