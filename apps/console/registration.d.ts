export * from './dist/registration';
