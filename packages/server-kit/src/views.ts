import { join } from 'node:path';
import nunjucks from 'nunjucks';

/**
 * Nunjucks with autoescaping on, for the apps that render pages (the helper pages, the console):
 * every value reaching a page is escaped unless a template says otherwise. `dir`: the app's templates.
 */
export function createViews(dir: string): nunjucks.Environment {
  const env = new nunjucks.Environment(new nunjucks.FileSystemLoader(dir), {
    autoescape: true,
    throwOnUndefined: false,
  });
  env.addFilter('datetime', (value: Date | null | undefined) =>
    value ? `${value.toISOString().slice(0, 16).replace('T', ' ')} UTC` : 'never',
  );
  return env;
}

/** The stylesheet and icon the apps' pages share, served by each under its own static path. */
export const SHARED_STATIC_DIR = join(__dirname, '..', 'public');
