package dev.sgm.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * An isolation boundary: 1 to 8 string keys mapped to non-empty string values, e.g. {@code
 * {project: alpha, session: s1}}. Identity is (scope, id). The canonical string sorts keys by code
 * point and percent-encodes reserved characters in values, so two equal scopes always give the same
 * string.
 */
public final class Scope {
  /** The most keys a scope may have. */
  public static final int MAX_KEYS = 8;

  /** The longest value, in characters. */
  public static final int MAX_VALUE_LENGTH = 256;

  private static final Pattern KEY = Pattern.compile("[a-z][a-z0-9_-]{0,31}");

  private final TreeMap<String, String> pairs;
  private final String canonical;

  private Scope(TreeMap<String, String> pairs) {
    this.pairs = pairs;
    this.canonical = buildCanonical(pairs);
  }

  /**
   * A scope from key/value pairs.
   *
   * @throws SgmException {@code invalid_record} naming the offending key ({@code scope.<key>})
   */
  public static Scope of(Map<String, String> pairs) {
    return of(pairs, "scope", ErrorCode.INVALID_RECORD);
  }

  /** A scope from alternating keys and values, for tests and examples. */
  public static Scope of(String... keysAndValues) {
    if (keysAndValues.length % 2 != 0) {
      throw new IllegalArgumentException("keys and values must alternate");
    }
    Map<String, String> map = new TreeMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return of(map);
  }

  private static Scope of(Map<String, String> pairs, String field, ErrorCode code) {
    if (pairs.isEmpty()) {
      throw error(code, field, "must have at least one key");
    }
    if (pairs.size() > MAX_KEYS) {
      throw error(
          code, field, "has " + pairs.size() + " keys; at most " + MAX_KEYS + " are allowed");
    }
    TreeMap<String, String> sorted = new TreeMap<>();
    for (Map.Entry<String, String> e : pairs.entrySet()) {
      String key = e.getKey();
      if (!KEY.matcher(key).matches()) {
        throw error(
            code,
            field,
            "key '"
                + key
                + "' must match [a-z][a-z0-9_-]{0,31} (lowercase, at most 32 characters)");
      }
      String value = e.getValue();
      String at = field + "." + key;
      if (value == null || value.isEmpty()) {
        throw error(code, at, "must be a non-empty string");
      }
      if (value.codePointCount(0, value.length()) > MAX_VALUE_LENGTH) {
        throw error(code, at, "is longer than " + MAX_VALUE_LENGTH + " characters");
      }
      if (value.chars().anyMatch(Character::isISOControl)) {
        throw error(code, at, "must not contain control characters");
      }
      sorted.put(key, value);
    }
    return new Scope(sorted);
  }

  private static SgmException error(ErrorCode code, String field, String reason) {
    return code == ErrorCode.INVALID_RECORD
        ? SgmException.invalidRecord(field, reason)
        : SgmException.invalidRequest(field, reason);
  }

  /**
   * Reads a scope from JSON.
   *
   * @param field the name of the field holding it, for error messages
   * @param code {@code invalid_record} inside a record, {@code invalid_request} in a request
   */
  public static Scope fromJson(JsonNode json, String field, ErrorCode code) {
    if (json == null || json.isMissingNode() || json.isNull()) {
      throw error(code, field, "is required");
    }
    if (!json.isObject()) {
      throw error(code, field, "must be an object of string keys to string values");
    }
    Map<String, String> map = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : json.properties()) {
      if (!e.getValue().isTextual()) {
        throw error(code, field + "." + e.getKey(), "must be a string");
      }
      map.put(e.getKey(), e.getValue().textValue());
    }
    return of(map, field, code);
  }

  /** Parses a canonical scope string such as {@code project=alpha;session=s1}. */
  public static Scope parseCanonical(String canonical) {
    Map<String, String> map = new TreeMap<>();
    for (String pair : canonical.split(";", -1)) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw SgmException.invalidRequest(
            "scope", "'" + canonical + "' is not a canonical scope string");
      }
      map.put(pair.substring(0, eq), decode(pair.substring(eq + 1)));
    }
    return of(map, "scope", ErrorCode.INVALID_REQUEST);
  }

  /** The key/value pairs, sorted by key. */
  public Map<String, String> pairs() {
    return Collections.unmodifiableMap(pairs);
  }

  /**
   * The canonical string: sorted {@code key=value} pairs joined by {@code ;}, values
   * percent-encoded.
   */
  public String canonical() {
    return canonical;
  }

  /**
   * Each pair in canonical form ({@code key=encodedValue}); the unit the storage indexes scopes by.
   */
  public List<String> canonicalPairs() {
    List<String> list = new ArrayList<>(pairs.size());
    pairs.forEach((k, v) -> list.add(k + "=" + encode(v)));
    return list;
  }

  /** The fully-qualified reference {@code {canonical scope}:{id}}. */
  public String qualify(String id) {
    return canonical + ":" + id;
  }

  /** True when {@code other} is this scope or narrower (has every pair of this one). */
  public boolean contains(Scope other) {
    if (other.pairs.size() < pairs.size()) {
      return false;
    }
    for (Map.Entry<String, String> pair : pairs.entrySet()) {
      if (!pair.getValue().equals(other.pairs.get(pair.getKey()))) {
        return false;
      }
    }
    return true;
  }

  /** True when this scope is strictly narrower than {@code other}. */
  public boolean isNarrowerThan(Scope other) {
    return other.contains(this) && !equals(other);
  }

  /** Every scope this one lies in, itself included: each non-empty subset of its pairs. */
  public List<Scope> selfAndAncestors() {
    List<Map.Entry<String, String>> entries = new ArrayList<>(pairs.entrySet());
    List<Scope> result = new ArrayList<>();
    int n = entries.size();
    for (int mask = 1; mask < (1 << n); mask++) {
      TreeMap<String, String> subset = new TreeMap<>();
      for (int i = 0; i < n; i++) {
        if ((mask & (1 << i)) != 0) {
          subset.put(entries.get(i).getKey(), entries.get(i).getValue());
        }
      }
      result.add(new Scope(subset));
    }
    return result;
  }

  /** The scope as a JSON object, keys sorted. */
  public ObjectNode toJson() {
    ObjectNode node = Json.object();
    pairs.forEach(node::put);
    return node;
  }

  private static String buildCanonical(Map<String, String> pairs) {
    StringBuilder sb = new StringBuilder();
    pairs.forEach(
        (k, v) -> {
          if (!sb.isEmpty()) {
            sb.append(';');
          }
          sb.append(k).append('=').append(encode(v));
        });
    return sb.toString();
  }

  /** Percent-encodes the characters the canonical form reserves: {@code % ; = : /}. */
  static String encode(String value) {
    StringBuilder sb = new StringBuilder(value.length());
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '%' -> sb.append("%25");
        case ';' -> sb.append("%3B");
        case '=' -> sb.append("%3D");
        case ':' -> sb.append("%3A");
        case '/' -> sb.append("%2F");
        default -> sb.append(c);
      }
    }
    return sb.toString();
  }

  static String decode(String value) {
    StringBuilder sb = new StringBuilder(value.length());
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '%' && i + 2 < value.length()) {
        try {
          sb.append((char) Integer.parseInt(value.substring(i + 1, i + 3), 16));
        } catch (NumberFormatException e) {
          throw SgmException.invalidRequest("scope", "bad percent-escape in '" + value + "'");
        }
        i += 2;
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Scope that && canonical.equals(that.canonical);
  }

  @Override
  public int hashCode() {
    return canonical.hashCode();
  }

  @Override
  public String toString() {
    return canonical;
  }

  /** Splits a fully-qualified reference at its first {@code :} into scope and id. */
  public static Map.Entry<Scope, String> parseQualified(String qualified) {
    int colon = Objects.requireNonNull(qualified, "qualified").indexOf(':');
    if (colon < 0) {
      throw SgmException.invalidRequest(
          "ref", "'" + qualified + "' has no ':' between scope and id");
    }
    return Map.entry(parseCanonical(qualified.substring(0, colon)), qualified.substring(colon + 1));
  }
}
