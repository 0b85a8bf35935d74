package dev.sgm.storage.sql;

import dev.sgm.api.Scope;
import dev.sgm.api.ScopeMode;
import dev.sgm.api.spi.RecordIndex.FieldValue;
import dev.sgm.api.spi.StorageQuery;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Translates a {@link StorageQuery} into SQL that H2 and PostgreSQL both run as it is (nothing here
 * is dialect-specific). Every value is a bind parameter; only fixed fragments are concatenated.
 *
 * <p>A query is one count and one keyset page over {@code records}. (Text queries go to the search
 * index, not here.)
 */
public final class SqlQuery {
  private final StorageQuery query;
  private final String where;
  private final List<Object> whereParams;

  private SqlQuery(StorageQuery query, String where, List<Object> whereParams) {
    this.query = query;
    this.where = where;
    this.whereParams = whereParams;
  }

  /** The query for {@code q}, seeing only records created at or below the sequence {@code mark}. */
  public static SqlQuery build(StorageQuery q, long mark) {
    List<Object> params = new ArrayList<>();
    StringBuilder where = new StringBuilder(" WHERE r.deleted = FALSE AND r.created_seq <= ?");
    params.add(mark);
    where.append(" AND ").append(scopeCondition("r.scope_key", q.scope(), q.scopeMode(), params));
    if (q.within() != null) {
      where.append(" AND ").append(withinCondition("r.scope_key", q.within(), params));
    }
    if (!q.ids().isEmpty()) {
      where.append(" AND r.id IN (").append(placeholders(q.ids().size())).append(')');
      params.addAll(q.ids());
    }
    if (!q.types().isEmpty()) {
      where.append(" AND r.type IN (").append(placeholders(q.types().size())).append(')');
      params.addAll(q.types());
    }
    if (!q.tags().isEmpty()) {
      if (q.anyTag()) {
        where
            .append(" AND r.pk IN (SELECT pk FROM record_tags WHERE ")
            .append(scopeCondition("scope_key", q.scope(), q.scopeMode(), params))
            .append(" AND tag IN (")
            .append(placeholders(q.tags().size()))
            .append("))");
        params.addAll(q.tags());
      } else {
        for (String tag : q.tags()) {
          where
              .append(" AND r.pk IN (SELECT pk FROM record_tags WHERE ")
              .append(scopeCondition("scope_key", q.scope(), q.scopeMode(), params))
              .append(" AND tag = ?)");
          params.add(tag);
        }
      }
    }
    for (FieldValue filter : q.filters()) {
      where
          .append(" AND r.pk IN (SELECT pk FROM record_fields WHERE ")
          .append(scopeCondition("scope_key", q.scope(), q.scopeMode(), params))
          .append(" AND path = ? AND val = ?)");
      params.add(filter.path());
      params.add(filter.value());
    }
    if (q.createdAfterMicros() != null) {
      where.append(" AND r.created_us > ?");
      params.add(q.createdAfterMicros());
    }
    if (q.createdBeforeMicros() != null) {
      where.append(" AND r.created_us < ?");
      params.add(q.createdBeforeMicros());
    }
    if (q.updatedAfterMicros() != null) {
      where.append(" AND r.updated_us > ?");
      params.add(q.updatedAfterMicros());
    }
    return new SqlQuery(q, where.toString(), params);
  }

  /** The condition that {@code column} holds a scope the query covers; adds its parameters. */
  public static String scopeCondition(
      String column, Scope scope, ScopeMode mode, List<Object> params) {
    if (mode == ScopeMode.EXACT) {
      params.add(scope.canonical());
      return column + " = ?";
    }
    List<String> conditions = new ArrayList<>();
    if (mode == ScopeMode.ANCESTORS || mode == ScopeMode.LINEAGE) {
      List<Scope> all = scope.selfAndAncestors();
      conditions.add(column + " IN (" + placeholders(all.size()) + ")");
      all.forEach(s -> params.add(s.canonical()));
    }
    if (mode == ScopeMode.DESCENDANTS || mode == ScopeMode.LINEAGE) {
      List<String> pairs = scope.canonicalPairs();
      conditions.add(
          column
              + " IN (SELECT scope_key FROM scope_pairs WHERE pair IN ("
              + placeholders(pairs.size())
              + ") GROUP BY scope_key HAVING COUNT(*) = ?)");
      params.addAll(pairs);
      params.add(pairs.size());
    }
    return conditions.size() == 1 ? conditions.get(0) : "(" + String.join(" OR ", conditions) + ")";
  }

  /**
   * The condition that {@code column} holds one of {@code readable} or a scope narrower than one;
   * false for none. Adds its parameters.
   */
  static String withinCondition(String column, List<Scope> readable, List<Object> params) {
    if (readable.isEmpty()) {
      return "1 = 0";
    }
    List<String> conditions = new ArrayList<>(readable.size());
    for (Scope scope : readable) {
      conditions.add(scopeCondition(column, scope, ScopeMode.DESCENDANTS, params));
    }
    return "(" + String.join(" OR ", conditions) + ")";
  }

  private static String placeholders(int n) {
    return String.join(", ", Collections.nCopies(n, "?"));
  }

  private String sortColumn() {
    return switch (query.orderBy()) {
      case CREATED_AT -> "r.created_us";
      case RELEVANCE, UPDATED_AT -> "r.updated_us";
    };
  }

  /** Counts every match: the page's total. */
  public String countSql() {
    return "SELECT COUNT(*) FROM records r" + where;
  }

  /** Binds {@link #countSql()}'s parameters. */
  public void bindCount(PreparedStatement ps) throws SQLException {
    bind(ps, 1, whereParams);
  }

  /** One keyset page of matches: columns pk, doc and the sort value. */
  public String pageSql() {
    String sort = sortColumn();
    String direction = query.ascending() ? "ASC" : "DESC";
    String comparison = query.ascending() ? ">" : "<";
    String keyset =
        query.after() == null
            ? ""
            : " AND ("
                + sort
                + " "
                + comparison
                + " ? OR ("
                + sort
                + " = ? AND r.pk "
                + comparison
                + " ?))";
    return "SELECT r.pk, r.doc, "
        + sort
        + " FROM records r"
        + where
        + keyset
        + " ORDER BY "
        + sort
        + " "
        + direction
        + ", r.pk "
        + direction
        + " LIMIT ?";
  }

  /** Binds {@link #pageSql()}'s parameters. */
  public void bindPage(PreparedStatement ps) throws SQLException {
    int next = bind(ps, 1, whereParams);
    if (query.after() != null) {
      ps.setLong(next++, query.after().sortValue());
      ps.setLong(next++, query.after().sortValue());
      ps.setLong(next++, query.after().rowKey());
    }
    ps.setInt(next, query.limit());
  }

  private static int bind(PreparedStatement ps, int index, List<Object> params)
      throws SQLException {
    for (Object param : params) {
      ps.setObject(index++, param);
    }
    return index;
  }
}
