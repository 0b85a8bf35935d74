package dev.sgm.core;

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
 * Translates a {@link StorageQuery} into the count and page SQL of the embedded store. Every value
 * is a bind parameter; only fixed fragments are concatenated.
 */
final class H2Query {
  private final String from;
  private final String where;
  private final List<Object> whereParams;
  private final String sortColumn;
  private final String keyset;
  private final List<Object> keysetParams;
  private final String order;
  private final int limit;

  private H2Query(
      String from,
      String where,
      List<Object> whereParams,
      String sortColumn,
      String keyset,
      List<Object> keysetParams,
      String order,
      int limit) {
    this.from = from;
    this.where = where;
    this.whereParams = whereParams;
    this.sortColumn = sortColumn;
    this.keyset = keyset;
    this.keysetParams = keysetParams;
    this.order = order;
    this.limit = limit;
  }

  static H2Query build(StorageQuery q, long mark) {
    List<Object> params = new ArrayList<>();
    StringBuilder from = new StringBuilder("records r");
    if (!q.terms().isEmpty()) {
      // Every term must be present; the score is the sum of the record's weights for them.
      from.append(" JOIN (SELECT pk, SUM(weight) AS score FROM record_terms WHERE ")
          .append(scopeCondition("scope_key", q.scope(), q.scopeMode(), params))
          .append(" AND term IN (")
          .append(placeholders(q.terms().size()))
          .append(") GROUP BY pk HAVING COUNT(*) = ?) t ON t.pk = r.pk");
      params.addAll(q.terms());
      params.add(q.terms().size());
    }
    StringBuilder where = new StringBuilder(" WHERE r.deleted = FALSE AND r.created_seq <= ?");
    params.add(mark);
    where.append(" AND ").append(scopeCondition("r.scope_key", q.scope(), q.scopeMode(), params));
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
    String sort =
        switch (q.orderBy()) {
          case RELEVANCE -> q.terms().isEmpty() ? "r.updated_us" : "t.score";
          case CREATED_AT -> "r.created_us";
          case UPDATED_AT -> "r.updated_us";
        };
    String direction = q.ascending() ? "ASC" : "DESC";
    String comparison = q.ascending() ? ">" : "<";
    String keyset = "";
    List<Object> keysetParams = List.of();
    if (q.after() != null) {
      keyset =
          " AND ("
              + sort
              + " "
              + comparison
              + " ? OR ("
              + sort
              + " = ? AND r.pk "
              + comparison
              + " ?))";
      keysetParams = List.of(q.after().sortValue(), q.after().sortValue(), q.after().rowKey());
    }
    String order = " ORDER BY " + sort + " " + direction + ", r.pk " + direction;
    return new H2Query(
        from.toString(), where.toString(), params, sort, keyset, keysetParams, order, q.limit());
  }

  /** The condition that {@code column} holds a scope the query covers; adds its parameters. */
  private static String scopeCondition(
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

  private static String placeholders(int n) {
    return String.join(", ", Collections.nCopies(n, "?"));
  }

  String countSql() {
    return "SELECT COUNT(*) FROM " + from + where;
  }

  String pageSql() {
    return "SELECT r.pk, r.doc, "
        + sortColumn
        + " AS sort_value FROM "
        + from
        + where
        + keyset
        + order
        + " LIMIT ?";
  }

  void bindCount(PreparedStatement ps) throws SQLException {
    bind(ps, 1, whereParams);
  }

  void bindPage(PreparedStatement ps) throws SQLException {
    int next = bind(ps, 1, whereParams);
    next = bind(ps, next, keysetParams);
    ps.setInt(next, limit);
  }

  private static int bind(PreparedStatement ps, int index, List<Object> params)
      throws SQLException {
    for (Object param : params) {
      ps.setObject(index++, param);
    }
    return index;
  }
}
