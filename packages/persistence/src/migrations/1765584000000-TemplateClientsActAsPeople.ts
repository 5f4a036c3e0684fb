import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Clients made from a template (a native app's) act only for a person from now on: the tokens they
 * got as themselves (client_credentials, identity = the client) are revoked. Frozen once released.
 */
export class TemplateClientsActAsPeople1765584000000 implements MigrationInterface {
  name = 'TemplateClientsActAsPeople1765584000000';

  async up(q: QueryRunner): Promise<void> {
    const now = q.connection.options.type === 'postgres' ? '$1' : '?';
    await q.query(
      `UPDATE access_tokens SET revoked_at = ${now} WHERE revoked_at IS NULL AND identity_id = client_id AND client_id IN (SELECT id FROM clients WHERE template_id IS NOT NULL)`,
      [new Date().toISOString()],
    );
  }

  async down(): Promise<void> {
    // a revocation is not undone
  }
}
