import type { DatabaseSync, StatementSync } from 'node:sqlite';

/**
 * Prepared statements by their SQL text, for the read side's query classes: a query's SQL varies
 * only with the filters used, so the few shapes are prepared once and reused.
 */
export class StatementCache {
  private readonly db: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();

  constructor(db: DatabaseSync) {
    this.db = db;
  }

  /**
   * `returnArrays` makes rows come back as arrays, cheaper than objects for a long scan; it is set
   * when the SQL is first prepared, so each SQL text is always asked for the same way.
   */
  get(sql: string, options: { returnArrays?: boolean } = {}): StatementSync {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      if (options.returnArrays) statement.setReturnArrays(true);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
