import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Transfer and delete tasks, their events, and the files they moved or skipped. A task's request
 * and counters are JSON; a submission id is its owner's once. Frozen once released.
 */
export class Tasks1765756800000 implements MigrationInterface {
  name = 'Tasks1765756800000';

  async up(q: QueryRunner): Promise<void> {
    const v = (name: string, length: number, isNullable = false) => ({ name, type: 'varchar', length: String(length), isNullable });
    const text = (name: string, isNullable = true) => ({ name, type: 'text', isNullable });
    await q.createTable(
      new Table({
        name: 'tasks',
        columns: [
          { ...v('id', 36), isPrimary: true },
          v('owner_id', 36),
          v('submission_id', 36),
          v('type', 16),
          v('status', 16),
          v('nice_status', 64, true),
          v('label', 512, true),
          v('source_endpoint_id', 36),
          v('destination_endpoint_id', 36),
          text('request', false),
          v('source_display_name', 128, true),
          v('destination_display_name', 128, true),
          text('fatal_error'),
          v('request_time', 32),
          v('completion_time', 32, true),
          v('deadline', 32),
          text('counters', false),
          v('canceled_by_admin', 16, true),
          text('canceled_by_admin_message'),
          { name: 'is_paused', type: 'boolean', isNullable: false },
        ],
      }),
    );
    await q.createIndex('tasks', new TableIndex({ name: 'IX_tasks_owner_time', columnNames: ['owner_id', 'request_time'] }));
    await q.createIndex('tasks', new TableIndex({ name: 'UQ_tasks_owner_submission', columnNames: ['owner_id', 'submission_id'], isUnique: true }));
    await q.createIndex('tasks', new TableIndex({ name: 'IX_tasks_status', columnNames: ['status', 'request_time'] }));
    await q.createIndex('tasks', new TableIndex({ name: 'IX_tasks_source', columnNames: ['source_endpoint_id', 'request_time'] }));
    await q.createIndex('tasks', new TableIndex({ name: 'IX_tasks_destination', columnNames: ['destination_endpoint_id', 'request_time'] }));
    await q.createTable(
      new Table({
        name: 'task_events',
        columns: [
          { ...v('task_id', 36), isPrimary: true },
          { name: 'seq', type: 'integer', isPrimary: true },
          v('code', 64),
          text('description', false),
          text('details', false),
          { name: 'is_error', type: 'boolean', isNullable: false },
          v('time', 32),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'task_files',
        columns: [
          { ...v('task_id', 36), isPrimary: true },
          { ...v('kind', 16), isPrimary: true },
          { name: 'seq', type: 'integer', isPrimary: true },
          text('source_path'),
          text('destination_path'),
          v('error_code', 64, true),
          text('error_details'),
          { name: 'is_directory', type: 'boolean', isNullable: false },
          v('time', 32),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('task_files');
    await q.dropTable('task_events');
    await q.dropTable('tasks');
  }
}
