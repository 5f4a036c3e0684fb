import type { AuthenticationService } from '../auth/AuthenticationService';
import { ResourceNotFoundError } from '../shared/errors';
import { isUuid } from '../shared/text';
import type { FileService } from '../storage/FileService';
import { httpsScopeOf, type ActingAs } from './Node';

/** What a client asks of a file over HTTPS: GET and HEAD read, PUT writes, DELETE deletes. */
export type HttpsAccess = 'read' | 'write' | 'delete';

/** Each access as the file operations decide it: the access wanted, and the pause rule's flag that stops it. */
const AS_FILE_OPERATION = {
  read: ['r', 'pause_task_transfer_read'],
  write: ['rw', 'pause_task_transfer_write'],
  delete: ['rw', 'pause_task_delete'],
} as const;

/** Where a node may serve a client a file: the node's directory, a share's base there, and the file's path from it. */
export interface NodeAccessDecision {
  identityId: string;
  root: string;
  base: string;
  path: string;
  /** The local account the node acts as (a mapped collection's), and the policy decided under; null: its own. */
  actingAs: ActingAs | null;
}

/**
 * The HTTPS access of data nodes, decided by the API for the node that asks: the bearer of a token
 * for one endpoint's `https` scope may use that endpoint's files exactly as the file operations
 * allow (owner, roles, a share's access rules, pause rules), and only on the node that serves it.
 */
export class NodeAccess {
  constructor(
    private readonly authentication: Pick<AuthenticationService, 'authenticateFor'>,
    private readonly files: Pick<FileService, 'onNode'>,
  ) {}

  async decide(nodeId: string, token: string | undefined, endpointId: string, rawPath: string, access: HttpsAccess): Promise<NodeAccessDecision> {
    if (!isUuid(endpointId)) throw new ResourceNotFoundError(`No such endpoint '${endpointId.slice(0, 100)}'`);
    const id = endpointId.toLowerCase();
    // a token for another endpoint's scope, or the Transfer API's, opens nothing here
    const caller = await this.authentication.authenticateFor(token, httpsScopeOf(id));
    const [wanted, operation] = AS_FILE_OPERATION[access];
    const where = await this.files.onNode(caller, id, rawPath, wanted, operation);
    if (where.node !== nodeId) throw new ResourceNotFoundError(`Endpoint '${id}' is not served by this node`);
    return { identityId: caller.primary.id, root: where.root, base: where.base, path: where.path, actingAs: where.actingAs };
  }
}
