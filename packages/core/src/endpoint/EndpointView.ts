import type { EndpointRole } from '../role/Role';
import type { Endpoint } from './Endpoint';

/**
 * An endpoint as one caller may see it: their roles on it and, for a share, its host. Renderers
 * show what this allows and nothing more.
 */
export interface EndpointView {
  endpoint: Endpoint;
  roles: readonly EndpointRole[];
  /** For a share: its host when the host is not deleted. */
  host: Endpoint | null;
  /** The caller may see the host (its name may be shown). */
  hostVisible: boolean;
  /** The caller's effective roles on the host. */
  hostRoles: readonly EndpointRole[];
  /** A share's path on its host is shown to the share's administrators and the host's administrators and activity monitors. */
  hostPathVisible: boolean;
  /** The caller may manage the share's access rules (acl_editable): false on any other kind. */
  aclEditable: boolean;
  /** A personal endpoint's setup key finishes its installation: only its administrators may see it. */
  setupKeyVisible: boolean;
}
