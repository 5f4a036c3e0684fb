export { freshPostgresDatabase, testBackends, testPostgresUrl, type TestBackend, type TestDatabase } from './postgres';
