// Hot reads without the query builder. TypeORM's SelectQueryBuilder rebuilds and re-escapes the
// SQL text and its alias map on every call: a third of the API's CPU on GET /v1/payments/{id}
// (bench/NOTES.md, tuning record). A hot read writes its SQL once with the select list built
// here, and hydrates rows through the driver exactly as TypeORM does (column types, transformers).
import type { DataSource, EntitySchema } from 'typeorm';

type ColumnMetadata = ReturnType<DataSource['getMetadata']>['columns'][number];

export interface EntityColumns<Row> {
  /** The table's quoted name. */
  readonly table: string;
  /** `alias.column AS alias_column, ...`: every column of the entity, for a SELECT list. */
  readonly select: string;
  /** The row from a raw result row, or null when its primary key is null (an outer join found nothing). */
  hydrate(raw: Record<string, unknown>): Row | null;
}

const compiled = new WeakMap<DataSource, Map<string, EntityColumns<unknown>>>();

/** The select list and hydration of an entity under an alias, built once per data source. */
export function entityColumns<Row>(dataSource: DataSource, entity: EntitySchema<Row>, alias: string): EntityColumns<Row> {
  let byKey = compiled.get(dataSource);
  if (!byKey) compiled.set(dataSource, (byKey = new Map()));
  const key = `${entity.options.name}\u0000${alias}`;
  const known = byKey.get(key);
  if (known) return known as EntityColumns<Row>;

  const metadata = dataSource.getMetadata(entity);
  const { driver } = dataSource;
  const columns: Array<{ column: ColumnMetadata; label: string }> = metadata.columns.map((column) => ({ column, label: `${alias}_${column.databaseName}` }));
  const primary = columns.find(({ column }) => column.isPrimary)!.label;
  const made: EntityColumns<Row> = {
    table: driver.escape(metadata.tableName),
    select: columns.map(({ column, label }) => `${driver.escape(alias)}.${driver.escape(column.databaseName)} AS ${driver.escape(label)}`).join(', '),
    hydrate(raw) {
      if (raw[primary] === null || raw[primary] === undefined) return null;
      const row: Record<string, unknown> = {};
      for (const { column, label } of columns) row[column.propertyName] = driver.prepareHydratedValue(raw[label], column);
      return row as Row;
    },
  };
  byKey.set(key, made as EntityColumns<unknown>);
  return made;
}
