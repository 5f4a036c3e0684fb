import { realpathSync } from 'node:fs';
import { dirname, relative, resolve, isAbsolute } from 'node:path';

/**
 * The node's own credentials (its secret file, its TLS certificate and key): no directory it
 * serves may hold them, at any depth, by its path or by what it resolves to. A storage gateway's
 * root is an endpoint administrator's choice through the Manager API; that must never open the
 * files that make a node the node (its secret would let its holder speak to the API as the node).
 */
export class OwnFiles {
  private readonly directories: string[];
  private known = new Map<string, boolean>();

  constructor(files: readonly string[]) {
    this.directories = [...new Set(files.flatMap((file) => [dirname(resolve(file)), dirname(realOrSame(file))]))];
  }

  /** Whether `root` holds one of the node's own files (answers kept until `forget`). */
  heldBy(root: string): boolean {
    let held = this.known.get(root);
    if (held === undefined) {
      const forms = [resolve(root), realOrSame(root)];
      held = forms.some((form) => this.directories.some((directory) => contains(form, directory)));
      this.known.set(root, held);
    }
    return held;
  }

  /** Forgets the answers (a root may have become a link since). */
  forget(): void {
    this.known = new Map();
  }
}

function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** Whether `inner` is `outer` or lies beneath it. */
function contains(outer: string, inner: string): boolean {
  const step = relative(outer, inner);
  return step === '' || (!step.startsWith('..') && !isAbsolute(step));
}
