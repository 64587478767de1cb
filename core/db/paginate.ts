import type { Knex } from 'knex';

export interface PageRequest {
  page: number;
  perPage: number;
}

export interface Page<T> {
  rows: T[];
  total: number;
}

/**
 * Runs a filtered query twice: once counted (without ordering) and once for the
 * requested page. The query passed in must carry its filters but no order/limit.
 */
export async function paginate<Row>(
  query: Knex.QueryBuilder,
  page: PageRequest,
  order: (q: Knex.QueryBuilder) => Knex.QueryBuilder,
): Promise<Page<Row>> {
  const countRow = (await query.clone().clearSelect().clearOrder().count({ n: '*' }).first()) as { n: number | string } | undefined;
  const total = Number(countRow?.n ?? 0);
  const rows = (await order(query.clone())
    .limit(page.perPage)
    .offset((page.page - 1) * page.perPage)) as Row[];
  return { rows, total };
}
