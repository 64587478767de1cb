import { dialectOf, pingDatabase, type Db, type Dialect } from '../db/create-db.ts';

/** What GET /api/health reports about storage; a database that does not answer throws. */
export class HealthService {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Asks the database a trivial question; resolves with its engine once it answers. */
  async database(): Promise<{ engine: Dialect }> {
    await pingDatabase(this.#db);
    return { engine: dialectOf(this.#db) };
  }
}
