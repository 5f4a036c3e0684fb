import { TRANSFER_SCOPE } from './AuthenticationService';
import { CLI_TEMPLATE_CLIENT } from './ClientRegistration';
import { EMAIL_SCOPE } from './IdentityDirectory';
import { VIEW_IDENTITY_SET_SCOPE } from './IdToken';

/** A scope the hosted service's clients ask for, in words a user understands; `dependsOn`: scopes of this list before it. */
export interface StandardScope {
  name: string;
  description: string;
  dependsOn?: string[];
}

/** The hosted service's timer and flows scopes, named by their resource servers' ids. */
export const TIMER_SCOPE = 'https://auth.globus.org/scopes/524230d7-ea86-4a52-8312-86065a9e0417/timer';
export const FLOWS_SCOPE = 'https://auth.globus.org/scopes/eec9b274-0c81-4334-bdc2-54e90e689b9a/all';

/**
 * The scopes and resource servers of the hosted service that its clients ask for at sign-in (the
 * CLI's `globus login` asks for all of these). xfer serves only the transfer and auth APIs; the
 * others' tokens are issued so that clients asking for them can sign in, and introspection knows them.
 */
export const STANDARD_SCOPES: readonly StandardScope[] = [
  { name: 'openid', description: 'Know who you are' },
  { name: 'profile', description: 'Know your name, username and organization' },
  { name: EMAIL_SCOPE, description: 'Know your e-mail address' },
  { name: VIEW_IDENTITY_SET_SCOPE, description: 'Know which identities you linked' },
  { name: 'urn:globus:auth:scope:auth.globus.org:view_identities', description: 'Look up the identities of other users' },
  { name: TRANSFER_SCOPE, description: 'Manage your endpoints and file transfers' },
  { name: 'urn:globus:auth:scope:groups.api.globus.org:all', description: 'Manage your groups' },
  { name: 'urn:globus:auth:scope:search.api.globus.org:all', description: 'Search the indexes you may see' },
  { name: TIMER_SCOPE, description: 'Run transfers on a schedule for you', dependsOn: [TRANSFER_SCOPE] },
  { name: FLOWS_SCOPE, description: 'Manage and run your flows' },
];

/** The clients present out of the box. */
export const STANDARD_CLIENTS = [CLI_TEMPLATE_CLIENT] as const;

/** Raised when the list above grows: a database installs what it lacks once per version. */
export const STANDARD_CATALOGUE_VERSION = 1;

/**
 * xfer's web console: a first-party confidential client of fixed id, registered by `xfer migrate`
 * and by the console itself when it starts (with its own address and secret).
 */
export const CONSOLE_CLIENT = { id: '3c0a5b1e-7d2f-4c6a-9e8b-c0501e000001', display_name: 'xfer console' } as const;

/** What the console asks for at sign-in: who you are, the transfer API, and looking up usernames. */
export const CONSOLE_SCOPES = ['openid', 'profile', 'email', TRANSFER_SCOPE, 'urn:globus:auth:scope:auth.globus.org:view_identities'] as const;
