package dev.sgm.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The {@code retrieve} operation's query. Only {@code scope} is required; every other criterion
 * narrows the result. See {@code docs/spec/retrieval.md} for the semantics of each.
 *
 * @param mode how {@code text} ranks records, or null for the server's default
 * @param minScore the lowest score a semantic or hybrid result may have (0..1), or null for the
 *     server's floors alone
 * @param filter equality on scalar leaves of {@code data} and {@code metadata}, keyed by dotted
 *     path
 * @param limit the page size, 1 to {@link #MAX_LIMIT}
 * @param cursor the opaque cursor of the previous page, or null for the first page
 */
public record RetrieveQuery(
    Scope scope,
    ScopeMode scopeMode,
    List<String> ids,
    List<String> types,
    List<String> tags,
    TagsMode tagsMode,
    String text,
    Mode mode,
    Double minScore,
    Map<String, JsonNode> filter,
    Instant createdAfter,
    Instant createdBefore,
    Instant updatedAfter,
    OrderBy orderBy,
    boolean ascending,
    int limit,
    String cursor) {

  /** The page size when none is asked for. */
  public static final int DEFAULT_LIMIT = 50;

  /** The largest page size. */
  public static final int MAX_LIMIT = 1000;

  private static final Pattern FILTER_PATH =
      Pattern.compile("(data|metadata)(\\.[^.\\s]+)+|provenance\\.agent");

  /** Whether a record must carry all of the query's tags or any of them. */
  public enum TagsMode {
    ALL,
    ANY
  }

  /** How a text query ranks records: by words, by meaning, or both. */
  public enum Mode {
    TEXT,
    SEMANTIC,
    HYBRID;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** The sort key of the result. */
  public enum OrderBy {
    RELEVANCE,
    UPDATED_AT,
    CREATED_AT;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public RetrieveQuery {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(scopeMode, "scopeMode");
    ids = List.copyOf(ids);
    types = List.copyOf(types);
    tags = List.copyOf(tags);
    Objects.requireNonNull(tagsMode, "tagsMode");
    filter = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(filter));
    if (orderBy == null) {
      orderBy = text != null ? OrderBy.RELEVANCE : OrderBy.UPDATED_AT;
    }
  }

  /** A query for everything in exactly {@code scope}, newest first. */
  public static RetrieveQuery of(Scope scope) {
    return builder(scope).build();
  }

  public static Builder builder(Scope scope) {
    return new Builder(scope);
  }

  public static RetrieveQuery fromJson(JsonNode json) {
    RequestReader r = RequestReader.of(json);
    Builder b = builder(r.requireScope("scope"));
    String mode = r.optionalString("scope_mode");
    if (mode != null) {
      b.scopeMode(ScopeMode.fromWireName(mode));
    }
    b.ids(r.optionalStringList("ids"));
    b.types(r.optionalStringList("types"));
    b.tags(r.optionalStringList("tags"));
    String tagsMode = r.optionalString("tags_mode");
    if (tagsMode != null) {
      b.tagsMode(parseEnum(TagsMode.class, tagsMode, "tags_mode"));
    }
    String text = r.optionalString("text");
    if (text != null) {
      if (text.isBlank()) {
        throw SgmException.invalidRequest("text", "must not be blank");
      }
      b.text(text);
    }
    String rankBy = r.optionalString("mode");
    if (rankBy != null) {
      b.mode(parseEnum(Mode.class, rankBy, "mode"));
    }
    b.minScore(r.optionalDouble("min_score", 0, 1));
    ObjectNode filter = r.optionalObject("filter");
    if (filter != null) {
      for (Map.Entry<String, JsonNode> e : filter.properties()) {
        b.filter(e.getKey(), e.getValue());
      }
    }
    b.createdAfter(r.optionalTimestamp("created_after"));
    b.createdBefore(r.optionalTimestamp("created_before"));
    b.updatedAfter(r.optionalTimestamp("updated_after"));
    String orderBy = r.optionalString("order_by");
    if (orderBy != null) {
      b.orderBy(parseEnum(OrderBy.class, orderBy, "order_by"));
    }
    String order = r.optionalString("order");
    if (order != null) {
      if (!order.equals("asc") && !order.equals("desc")) {
        throw SgmException.invalidRequest("order", "'" + order + "' is not one of [asc, desc]");
      }
      b.ascending(order.equals("asc"));
    }
    Long limit = r.optionalLong("limit", 1, MAX_LIMIT);
    if (limit != null) {
      b.limit(limit.intValue());
    }
    b.cursor(r.optionalString("cursor"));
    r.finish();
    return b.build();
  }

  private static <E extends Enum<E>> E parseEnum(Class<E> type, String value, String field) {
    for (E constant : type.getEnumConstants()) {
      if (constant.name().toLowerCase(Locale.ROOT).equals(value)) {
        return constant;
      }
    }
    throw SgmException.invalidRequest(
        field,
        "'"
            + value
            + "' is not one of "
            + Arrays.stream(type.getEnumConstants())
                .map(c -> c.name().toLowerCase(Locale.ROOT))
                .toList());
  }

  /** The query as wire JSON; everything but defaults is written. */
  public ObjectNode toJson() {
    ObjectNode json = Json.object();
    json.set("scope", scope.toJson());
    if (scopeMode != ScopeMode.EXACT) {
      json.put("scope_mode", scopeMode.wireName());
    }
    if (!ids.isEmpty()) {
      ids.forEach(json.putArray("ids")::add);
    }
    if (!types.isEmpty()) {
      types.forEach(json.putArray("types")::add);
    }
    if (!tags.isEmpty()) {
      tags.forEach(json.putArray("tags")::add);
      json.put("tags_mode", tagsMode.name().toLowerCase(Locale.ROOT));
    }
    if (text != null) {
      json.put("text", text);
    }
    if (mode != null) {
      json.put("mode", mode.wireName());
    }
    if (minScore != null) {
      json.put("min_score", minScore);
    }
    if (!filter.isEmpty()) {
      ObjectNode f = json.putObject("filter");
      filter.forEach(f::set);
    }
    if (createdAfter != null) {
      json.put("created_after", Timestamps.format(createdAfter));
    }
    if (createdBefore != null) {
      json.put("created_before", Timestamps.format(createdBefore));
    }
    if (updatedAfter != null) {
      json.put("updated_after", Timestamps.format(updatedAfter));
    }
    json.put("order_by", orderBy.wireName());
    json.put("order", ascending ? "asc" : "desc");
    json.put("limit", limit);
    if (cursor != null) {
      json.put("cursor", cursor);
    }
    return json;
  }

  /** Builds a {@link RetrieveQuery}; defaults are the contract's. */
  public static final class Builder {
    private final Scope scope;
    private ScopeMode scopeMode = ScopeMode.EXACT;
    private List<String> ids = List.of();
    private List<String> types = List.of();
    private List<String> tags = List.of();
    private TagsMode tagsMode = TagsMode.ALL;
    private String text;
    private Mode mode;
    private Double minScore;
    private Map<String, JsonNode> filter = new LinkedHashMap<>();
    private Instant createdAfter;
    private Instant createdBefore;
    private Instant updatedAfter;
    private OrderBy orderBy;
    private boolean ascending;
    private int limit = DEFAULT_LIMIT;
    private String cursor;

    private Builder(Scope scope) {
      this.scope = Objects.requireNonNull(scope, "scope");
    }

    public Builder scopeMode(ScopeMode value) {
      scopeMode = value;
      return this;
    }

    public Builder ids(List<String> value) {
      ids = value;
      return this;
    }

    public Builder types(List<String> value) {
      types = value;
      return this;
    }

    public Builder tags(List<String> value) {
      tags = value;
      return this;
    }

    public Builder tagsMode(TagsMode value) {
      tagsMode = value;
      return this;
    }

    public Builder text(String value) {
      text = value;
      return this;
    }

    public Builder minScore(Double value) {
      minScore = value;
      return this;
    }

    public Builder mode(Mode value) {
      mode = value;
      return this;
    }

    /**
     * Adds an equality criterion on a {@code data.*} or {@code metadata.*} path, or {@code
     * provenance.agent}.
     */
    public Builder filter(String path, JsonNode value) {
      String field = "filter." + path;
      if (!FILTER_PATH.matcher(path).matches()) {
        throw SgmException.invalidRequest(
            field,
            "paths start with data. or metadata. followed by field names, e.g. data.state,"
                + " or are provenance.agent");
      }
      if (value == null || !value.isValueNode() || value.isNull()) {
        throw SgmException.invalidRequest(field, "must be a string, number or boolean");
      }
      filter.put(path, value);
      return this;
    }

    public Builder createdAfter(Instant value) {
      createdAfter = value;
      return this;
    }

    public Builder createdBefore(Instant value) {
      createdBefore = value;
      return this;
    }

    public Builder updatedAfter(Instant value) {
      updatedAfter = value;
      return this;
    }

    public Builder orderBy(OrderBy value) {
      orderBy = value;
      return this;
    }

    public Builder ascending(boolean value) {
      ascending = value;
      return this;
    }

    public Builder limit(int value) {
      if (value < 1 || value > MAX_LIMIT) {
        throw SgmException.invalidRequest(
            "limit", "must be between 1 and " + MAX_LIMIT + ", was " + value);
      }
      limit = value;
      return this;
    }

    public Builder cursor(String value) {
      cursor = value;
      return this;
    }

    public RetrieveQuery build() {
      return new RetrieveQuery(
          scope,
          scopeMode,
          ids,
          types,
          tags,
          tagsMode,
          text,
          mode,
          minScore,
          filter,
          createdAfter,
          createdBefore,
          updatedAfter,
          orderBy,
          ascending,
          limit,
          cursor);
    }
  }
}
