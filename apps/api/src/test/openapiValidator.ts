import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { NextFunction, Request, Response } from 'express';
import { openApiDocument } from '../http/openapi';

type Operation = { responses: Record<string, { content?: Record<string, { schema: object }> }> };

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
ajv.addSchema({ $id: 'xfer-openapi', components: openApiDocument.components });

const routes = Object.entries(openApiDocument.paths as Record<string, Record<string, unknown>>).map(([template, item]) => ({
  pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  item,
}));

/** The schema the document gives for this response, or null when the document does not describe the route. */
function schemaFor(method: string, path: string, status: number): object | null {
  const route = routes.find((r) => r.pattern.test(path));
  const operation = route?.item[method.toLowerCase()] as Operation | undefined;
  if (!operation) return null;
  const response = operation.responses[String(status)] ?? operation.responses.default;
  const schema = response?.content?.['application/json']?.schema as { $ref?: string } | undefined;
  if (!schema) return null;
  return schema.$ref ? { $ref: `xfer-openapi${schema.$ref}` } : schema;
}

/**
 * Middleware for tests: checks every JSON body the API sends against the OpenAPI document and
 * collects what does not match.
 */
export function responseRecorder(violations: string[]) {
  return (req: Request, res: Response, next: NextFunction) => {
    const send = res.json.bind(res);
    res.json = (body: unknown) => {
      const path = req.originalUrl.split('?')[0].replace(/^\/v0\.10/, '');
      const schema = req.originalUrl.startsWith('/v0.10/') ? schemaFor(req.method, path, res.statusCode) : null;
      if (schema) {
        const validate = ajv.compile(schema);
        if (!validate(body)) {
          violations.push(`${req.method} ${path} ${res.statusCode}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body).slice(0, 300)}`);
        }
      }
      return send(body);
    };
    next();
  };
}
