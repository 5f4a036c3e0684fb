export * from './CopyPolicy';
export * from './CopyReport';
export { copyFile, copyTree, MAX_TREE_DEPTH, type CopyRun } from './copyTree';
export { removeTree } from './walk';
