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
 * Translates a {@link StorageQuery} into the SQL of the embedded store. Every value is a bind
 * parameter; only fixed fragments are concatenated.
 *
 * <p>A query without text is one count and one keyset page over {@code records}. A text query runs
 * in steps instead of one join: the scope's term postings give the matches and their scores, the
 * record criteria are checked on those keys, and the page is ranked from them. A join would leave
 * the join order to H2's statistics, and one order (the aggregate once per record of the scope) is
 * a hundred times slower.
 */
final class H2Query {
  private final StorageQuery query;
  private final String where;
  private final List<Object> whereParams;
  private final String termsSql;
  private final List<Object> termsParams;

  private H2Query(
      StorageQuery query,
      String where,
      List<Object> whereParams,
      String termsSql,
      List<Object> termsParams) {
    this.query = query;
    this.where = where;
    this.whereParams = whereParams;
    this.termsSql = termsSql;
    this.termsParams = termsParams;
  }

  static H2Query build(StorageQuery q, long mark) {
    String termsSql = null;
    List<Object> termsParams = new ArrayList<>();
    if (!q.terms().isEmpty()) {
      // Every term must be present; the score is the sum of the record's weights for them.
      termsSql =
          "SELECT pk, SUM(weight) FROM record_terms WHERE "
              + scopeCondition("scope_key", q.scope(), q.scopeMode(), termsParams)
              + " AND term IN ("
              + placeholders(q.terms().size())
              + ") GROUP BY pk HAVING COUNT(*) = ?";
      termsParams.addAll(q.terms());
      termsParams.add(q.terms().size());
    }
    List<Object> params = new ArrayList<>();
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
    return new H2Query(q, where.toString(), params, termsSql, termsParams);
  }

  /** The condition that {@code column} holds a scope the query covers; adds its parameters. */
  static String scopeCondition(String column, Scope scope, ScopeMode mode, List<Object> params) {
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

  boolean isText() {
    return termsSql != null;
  }

  // ---- queries without text

  private String sortColumn() {
    return switch (query.orderBy()) {
      case CREATED_AT -> "r.created_us";
      case RELEVANCE, UPDATED_AT -> "r.updated_us";
    };
  }

  String countSql() {
    return "SELECT COUNT(*) FROM records r" + where;
  }

  void bindCount(PreparedStatement ps) throws SQLException {
    bind(ps, 1, whereParams);
  }

  String pageSql() {
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

  void bindPage(PreparedStatement ps) throws SQLException {
    int next = bind(ps, 1, whereParams);
    if (query.after() != null) {
      ps.setLong(next++, query.after().sortValue());
      ps.setLong(next++, query.after().sortValue());
      ps.setLong(next++, query.after().rowKey());
    }
    ps.setInt(next, query.limit());
  }

  // ---- text queries

  /** Selects (pk, score) of every record in the scope holding every term. */
  String matchesSql() {
    return termsSql;
  }

  void bindMatches(PreparedStatement ps) throws SQLException {
    bind(ps, 1, termsParams);
  }

  /** Selects the keys, among the given ones, of the records that meet every other criterion. */
  String passingSql() {
    return "SELECT r.pk FROM records r" + where + " AND r.pk = ANY(?)";
  }

  void bindPassing(PreparedStatement ps, Long[] keys) throws SQLException {
    int next = bind(ps, 1, whereParams);
    ps.setObject(next, keys);
  }

  /** Selects (pk, doc) of the given keys. */
  static String documentsSql() {
    return "SELECT pk, doc FROM records WHERE pk = ANY(?)";
  }

  private static int bind(PreparedStatement ps, int index, List<Object> params)
      throws SQLException {
    for (Object param : params) {
      ps.setObject(index++, param);
    }
    return index;
  }
}
