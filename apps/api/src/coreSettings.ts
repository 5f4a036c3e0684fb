import type { CoreOptions } from '@xfer/core';
import { HttpTokenIntrospector } from './adapters/HttpTokenIntrospector';
import type { ApiConfig } from './config';

/**
 * What the API asks of the core services of its process: tokens checked locally, or by an external
 * authorization server's introspection when one is configured; the scope every token must carry.
 */
export function apiCoreSettings(config: Partial<Pick<ApiConfig, 'introspection' | 'requiredScope'>>): Pick<CoreOptions, 'authentication'> {
  const introspection = config.introspection;
  return {
    authentication: {
      introspector: introspection ? new HttpTokenIntrospector(introspection.url, introspection.clientId, introspection.clientSecret) : null,
      ...(config.requiredScope !== undefined && { requiredScope: config.requiredScope }),
    },
  };
}
