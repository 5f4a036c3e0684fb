export { run, buildProgram, bothApps, USAGE_ERROR, type Io } from './program';
