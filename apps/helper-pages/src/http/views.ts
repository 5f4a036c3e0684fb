import { join } from 'node:path';
import nunjucks from 'nunjucks';

/**
 * Nunjucks with autoescaping on: every value reaching a page is escaped unless a template says
 * otherwise. `dir`: the templates (the helper pages' own by default; the console has its own).
 */
export function createViews(dir: string = join(__dirname, '..', '..', 'views')): nunjucks.Environment {
  const env = new nunjucks.Environment(new nunjucks.FileSystemLoader(dir), {
    autoescape: true,
    throwOnUndefined: false,
  });
  env.addFilter('datetime', (value: Date | null | undefined) =>
    value ? `${value.toISOString().slice(0, 16).replace('T', ' ')} UTC` : 'never',
  );
  return env;
}

export const VIEWS_STATIC_DIR = join(__dirname, '..', '..', 'public');
