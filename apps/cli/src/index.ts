export { run, buildProgram, USAGE_ERROR, type Io } from './program';
