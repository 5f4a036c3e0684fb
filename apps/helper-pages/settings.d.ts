export * from './dist/settings';
