import { InitialSchema1763769600000 } from './1763769600000-InitialSchema';
import { AuthorizationPages1763856000000 } from './1763856000000-AuthorizationPages';
import { ServiceSettings1763942400000 } from './1763942400000-ServiceSettings';
import { HolderIndexes1764028800000 } from './1764028800000-HolderIndexes';
import { RoleHost1764115200000 } from './1764115200000-RoleHost';
import { OAuthServer1764201600000 } from './1764201600000-OAuthServer';
import { SignInFailures1764288000000 } from './1764288000000-SignInFailures';
import { OpenIdConnect1764374400000 } from './1764374400000-OpenIdConnect';
import { AccessRules1764460800000 } from './1764460800000-AccessRules';
import { EndpointSearch1764547200000 } from './1764547200000-EndpointSearch';
import { ChangeNotifications1764633600000 } from './1764633600000-ChangeNotifications';
import { SearchTerms1764720000000 } from './1764720000000-SearchTerms';
import { SearchVisibility1764806400000 } from './1764806400000-SearchVisibility';
import { SearchOnTextChanges1764892800000 } from './1764892800000-SearchOnTextChanges';
import { PostgresSearchOnTextChanges1764979200000 } from './1764979200000-PostgresSearchOnTextChanges';
import { SessionNotifications1765065600000 } from './1765065600000-SessionNotifications';
import { SearchIndexMerging1765152000000 } from './1765152000000-SearchIndexMerging';
import { UsernamesIgnoreCase1765238400000 } from './1765238400000-UsernamesIgnoreCase';
import { DependentTokenConsent1765324800000 } from './1765324800000-DependentTokenConsent';
import { ClientTemplates1765411200000 } from './1765411200000-ClientTemplates';
import { SubscriptionAdministrators1765497600000 } from './1765497600000-SubscriptionAdministrators';
import { TemplateClientsActAsPeople1765584000000 } from './1765584000000-TemplateClientsActAsPeople';
import { EndpointStorage1765670400000 } from './1765670400000-EndpointStorage';
import { Tasks1765756800000 } from './1765756800000-Tasks';
import { TaskStatusNotifications1765843200000 } from './1765843200000-TaskStatusNotifications';
import { ClientIdentities1765929600000 } from './1765929600000-ClientIdentities';

/** Every migration, oldest first: one history for SQLite and Postgres. */
export const MIGRATIONS = [InitialSchema1763769600000, AuthorizationPages1763856000000, ServiceSettings1763942400000, HolderIndexes1764028800000, RoleHost1764115200000, OAuthServer1764201600000, SignInFailures1764288000000, OpenIdConnect1764374400000, AccessRules1764460800000, EndpointSearch1764547200000, ChangeNotifications1764633600000, SearchTerms1764720000000, SearchVisibility1764806400000, SearchOnTextChanges1764892800000, PostgresSearchOnTextChanges1764979200000, SessionNotifications1765065600000, SearchIndexMerging1765152000000, UsernamesIgnoreCase1765238400000, DependentTokenConsent1765324800000, ClientTemplates1765411200000, SubscriptionAdministrators1765497600000, TemplateClientsActAsPeople1765584000000, EndpointStorage1765670400000, Tasks1765756800000, TaskStatusNotifications1765843200000, ClientIdentities1765929600000];
