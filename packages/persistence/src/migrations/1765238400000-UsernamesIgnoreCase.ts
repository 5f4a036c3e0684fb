import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Usernames compare without regard to case (security review two, finding 2): `Carol@Example.org`
 * and `carol@example.org` are one identity, kept unique by the database so that two concurrent
 * provisions cannot both win. Usernames are ASCII, which `lower()` folds alike on both databases.
 * A database that already holds two identities differing only in case cannot take the index: the
 * migration says which, so the operator can rename one. Frozen once released.
 */
export class UsernamesIgnoreCase1765238400000 implements MigrationInterface {
  name = 'UsernamesIgnoreCase1765238400000';

  async up(q: QueryRunner): Promise<void> {
    const clashes = (await q.query('SELECT lower(username) AS username FROM identities GROUP BY lower(username) HAVING count(*) > 1 LIMIT 20')) as { username: string }[];
    if (clashes.length > 0) {
      throw new Error(
        `Identities whose usernames differ only in case: ${clashes.map((c) => c.username).join(', ')}. ` +
          'Usernames now compare without regard to case: rename one of each (xfer identity ...), then migrate again.',
      );
    }
    await q.query('CREATE UNIQUE INDEX "UQ_identities_username_lower" ON identities (lower(username))');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX "UQ_identities_username_lower"');
  }
}
