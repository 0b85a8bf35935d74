package dev.sgm.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.sgm.api.spi.SecretDetector;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds credentials in a record's text before it is stored: the published formats of common
 * credentials, private keys, passwords in URLs and connection strings, and high-entropy values
 * assigned to names such as {@code password} or {@code api_key}. Each rule states the format it
 * follows. Every rule is a regular expression without nested repetition over input split at
 * whitespace-free boundaries, or a plain search, so a scan is linear in the text's length.
 *
 * <p>Profiles may add detectors of their own ({@link SecretDetector}); they run after the built-in
 * rules on the same text.
 */
public final class SecretScanner {
  /** The built-in rules alone. */
  public static final SecretScanner BUILT_IN = new SecretScanner(List.of());

  /** One credential found: its kind, the field it is in, and where in that field's text. */
  public record Finding(String kind, String field, int start, int end) {}

  /**
   * A rule: text matching {@code pattern} holds a secret of {@code kind} in group {@code group} (0:
   * the whole match), accepted when {@code strong} says the value looks random enough.
   */
  private record Rule(
      String kind, Pattern pattern, int group, boolean needsEntropy, List<String> triggers) {}

  private static final List<Rule> RULES =
      List.of(
          // AWS access key ids: AKIA (long-term) / ASIA (temporary) and 16 base-32 characters.
          rule(
              "aws_access_key_id",
              "\\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\\b",
              0,
              false,
              "akia",
              "asia",
              "abia",
              "acca"),
          // AWS secret access keys: 40 base64 characters, near the words aws or secret.
          rule(
              "aws_secret_access_key",
              "(?i:aws|secret)[A-Za-z_ \\t\"':=-]{0,30}?(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
              1,
              true,
              "aws",
              "secret"),
          // GitHub tokens: ghp_/gho_/ghu_/ghs_/ghr_ and 36 alphanumerics; fine-grained github_pat_.
          rule(
              "github_token",
              "\\bgh[pousr]_[A-Za-z0-9]{36}\\b",
              0,
              false,
              "ghp_",
              "gho_",
              "ghu_",
              "ghs_",
              "ghr_"),
          rule("github_token", "\\bgithub_pat_[A-Za-z0-9_]{60,}\\b", 0, false, "github_pat_"),
          // GitLab personal access tokens: glpat- and 20 characters.
          rule("gitlab_token", "\\bglpat-[A-Za-z0-9_-]{20,}", 0, false, "glpat-"),
          // npm access tokens: npm_ and 36 alphanumerics.
          rule("npm_token", "\\bnpm_[A-Za-z0-9]{36}\\b", 0, false, "npm_"),
          // PyPI API tokens: pypi- and a macaroon starting with the encoded "pypi.org".
          rule("pypi_token", "\\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}", 0, false, "pypi-"),
          // Slack tokens: xoxb-/xoxp-/xoxa-/xoxo-/xoxs-/xoxr- and dash-separated parts.
          rule("slack_token", "\\bxox[abposr]-[A-Za-z0-9-]{10,}", 0, false, "xox"),
          // Slack incoming webhooks.
          rule(
              "slack_webhook",
              "https://hooks\\.slack\\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{20,}",
              0,
              false,
              "hooks.slack.com"),
          // Stripe secret and restricted keys: sk_live_/sk_test_/rk_live_/rk_test_ and 16+
          // characters.
          rule(
              "stripe_key",
              "\\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}\\b",
              0,
              false,
              "k_live_",
              "k_test_"),
          // Anthropic API keys: sk-ant-api03-... / sk-ant-admin01-...
          rule(
              "anthropic_api_key",
              "\\bsk-ant-[a-z]+\\d{2}-[A-Za-z0-9_-]{40,}",
              0,
              false,
              "sk-ant-"),
          // OpenAI API keys: sk-proj-/sk-svcacct-/sk-admin- or legacy sk- with the T3BlbkFJ marker.
          rule(
              "openai_api_key",
              "\\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|\\bsk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\\b",
              0,
              false,
              "sk-"),
          // Google API keys: AIza and 35 characters.
          rule("google_api_key", "\\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])", 0, false, "aiza"),
          // JSON Web Tokens: three base64url parts, the first two JSON objects ("eyJ").
          rule(
              "jwt",
              "\\beyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}",
              0,
              false,
              "eyj"),
          // Azure storage connection strings: AccountKey=<base64>; SAS signatures sig=<base64>.
          rule(
              "azure_storage_key",
              "AccountKey=([A-Za-z0-9+/]{40,}={0,2})",
              1,
              false,
              "accountkey="),
          rule(
              "azure_sas_signature",
              "[?&]sig=([A-Za-z0-9%+/]{30,}(?:%3D|=){0,2})",
              1,
              false,
              "sig="),
          // URLs and connection strings with a password: scheme://user:password@host.
          rule(
              "url_password",
              "\\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\\s:/@]{1,100}:([^\\s/@]{3,200})@",
              1,
              false,
              "://"),
          // Authorization headers: Bearer and Basic credentials, as in a pasted curl command.
          rule(
              "authorization_header",
              "(?i:authorization)[\"']?\\s*[:=]\\s*[\"']?(?i:bearer|basic|token)\\s+([A-Za-z0-9._~+/-]{16,}=*)",
              1,
              false,
              "authorization"),
          // A high-entropy value assigned to a name that says it is secret: password=...,
          // "api_key":
          // "...", SECRET_TOKEN: ...
          rule(
              "assigned_secret",
              "(?i)\\b[A-Za-z0-9_.-]{0,40}?(?:password|passwd|pwd|secret|api[_-]?key|apikey|access[_-]?key"
                  + "|auth[_-]?token|token|client[_-]?secret|private[_-]?key)[\"']?\\s{0,3}[:=]\\s{0,3}"
                  + "[\"']?([^\\s\"',;]{8,200})",
              1,
              true,
              "pass",
              "pwd",
              "secret",
              "key",
              "token"));

  /** Every kind of credential the built-in rules find, as findings and redactions name them. */
  public static final List<String> KINDS =
      java.util.stream.Stream.concat(
              java.util.stream.Stream.of("private_key"), RULES.stream().map(Rule::kind))
          .distinct()
          .toList();

  private static final String PEM_BEGIN = "-----BEGIN ";
  private static final Pattern PEM_LABEL =
      Pattern.compile("-----BEGIN ((?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?)-----");

  private final List<SecretDetector> extra;

  /** The built-in rules and {@code extra} detectors. */
  public SecretScanner(List<SecretDetector> extra) {
    this.extra = List.copyOf(extra);
  }

  /** Every kind this scanner reports: the built-in ones, then the extra detectors'. */
  public List<String> kinds() {
    java.util.LinkedHashSet<String> kinds = new java.util.LinkedHashSet<>(KINDS);
    extra.forEach(detector -> kinds.addAll(detector.kinds()));
    return List.copyOf(kinds);
  }

  /**
   * A rule that runs only on text containing one of {@code triggers} (lower case, compared with the
   * text in lower case): each is in every match, so most text, which holds none, costs one search
   * of each instead of every expression.
   */
  private static Rule rule(
      String kind, String regex, int group, boolean needsEntropy, String... triggers) {
    return new Rule(kind, Pattern.compile(regex), group, needsEntropy, List.of(triggers));
  }

  /** The credentials in {@code text}, in order, none overlapping; {@code field} names the text. */
  public List<Finding> scan(String field, String text) {
    List<Finding> found = new ArrayList<>();
    privateKeys(field, text, found);
    String lower = text.toLowerCase(Locale.ROOT);
    for (Rule rule : RULES) {
      if (rule.triggers().stream().noneMatch(lower::contains)) {
        continue;
      }
      Matcher matcher = rule.pattern().matcher(text);
      while (matcher.find()) {
        int start = matcher.start(rule.group());
        int end = matcher.end(rule.group());
        String value = text.substring(start, end);
        if (rule.needsEntropy() && !looksRandom(value)) {
          continue;
        }
        // A generated AWS secret mixes cases and digits; a git hash of 40 hex characters does not.
        if (rule.kind().equals("aws_secret_access_key") && !mixesCasesAndDigits(value)) {
          continue;
        }
        if (isPlaceholder(value)) {
          continue;
        }
        found.add(new Finding(rule.kind(), field, start, end));
      }
    }
    for (SecretDetector detector : extra) {
      for (SecretDetector.Match match : detector.find(text)) {
        found.add(checked(detector, match, field, text.length()));
      }
    }
    return withoutOverlaps(found);
  }

  /** A detector's match as a finding, if it is one: else the detector is broken, and says so. */
  private static Finding checked(
      SecretDetector detector, SecretDetector.Match match, String field, int length) {
    if (match == null
        || match.start() < 0
        || match.end() > length
        || match.start() >= match.end()
        || match.kind() == null
        || !SecretDetector.KIND.matcher(match.kind()).matches()) {
      throw new IllegalStateException(
          "secret detector "
              + detector.getClass().getName()
              + " reported an impossible match: "
              + match);
    }
    return new Finding(match.kind(), field, match.start(), match.end());
  }

  /** PEM and OpenSSH private keys, found by their armour: a linear search, no regex over keys. */
  private static void privateKeys(String field, String text, List<Finding> found) {
    int from = 0;
    while (true) {
      int begin = text.indexOf(PEM_BEGIN, from);
      if (begin < 0) {
        return;
      }
      Matcher label = PEM_LABEL.matcher(text).region(begin, Math.min(text.length(), begin + 80));
      if (!label.lookingAt()) {
        from = begin + PEM_BEGIN.length();
        continue;
      }
      String endLine = "-----END " + label.group(1) + "-----";
      int close = text.indexOf(endLine, label.end());
      int end = close < 0 ? text.length() : close + endLine.length();
      found.add(new Finding("private_key", field, begin, end));
      from = end;
    }
  }

  /** Keeps, of findings that overlap, the one that starts first (the longer when tied). */
  private static List<Finding> withoutOverlaps(List<Finding> found) {
    found.sort(
        Comparator.comparingInt(Finding::start)
            .thenComparing(Comparator.comparingInt(Finding::end).reversed()));
    List<Finding> kept = new ArrayList<>();
    int covered = -1;
    for (Finding finding : found) {
      if (finding.start() >= covered) {
        kept.add(finding);
        covered = finding.end();
      }
    }
    return kept;
  }

  /**
   * Whether a value assigned to a secret-sounding name looks generated rather than a word: at least
   * 3 bits of entropy per character and at least two of lower case, upper case, digits and symbols
   * (so "password: swordfish" in prose stays, "password: hT8#kq2!Lm" goes).
   */
  static boolean looksRandom(String value) {
    int classes = 0;
    classes += value.chars().anyMatch(Character::isLowerCase) ? 1 : 0;
    classes += value.chars().anyMatch(Character::isUpperCase) ? 1 : 0;
    classes += value.chars().anyMatch(Character::isDigit) ? 1 : 0;
    classes += value.chars().anyMatch(c -> !Character.isLetterOrDigit(c)) ? 1 : 0;
    return classes >= 2 && entropy(value) >= 3.0;
  }

  private static boolean mixesCasesAndDigits(String value) {
    return value.chars().anyMatch(Character::isLowerCase)
        && value.chars().anyMatch(Character::isUpperCase)
        && value.chars().anyMatch(Character::isDigit);
  }

  /** Shannon entropy in bits per character. */
  static double entropy(String value) {
    int[] counts = new int[128];
    int other = 0;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 128) {
        counts[c]++;
      } else {
        other++;
      }
    }
    double bits = 0;
    for (int count : counts) {
      bits += term(count, value.length());
    }
    return bits + term(other, value.length());
  }

  private static double term(int count, int length) {
    if (count == 0) {
      return 0;
    }
    double p = (double) count / length;
    return -p * (Math.log(p) / Math.log(2));
  }

  /**
   * Values that stand for a secret without being one: ${VAR}, <token>, ****, xxxx, [REDACTED...].
   */
  private static boolean isPlaceholder(String value) {
    String lower = value.toLowerCase(Locale.ROOT);
    return lower.startsWith("${")
        || lower.startsWith("$(")
        || lower.startsWith("<")
        || lower.startsWith("[redacted")
        || lower.startsWith("{{")
        || lower.chars().allMatch(c -> c == '*' || c == 'x' || c == '.');
  }

  /**
   * Replaces every credential in the record's text ({@code content}, {@code title}, {@code tags},
   * and the string values of {@code data} and {@code metadata}) with {@code [REDACTED:<kind>]};
   * returns what was found, with positions in the text as it was.
   */
  public List<Finding> redact(ObjectNode record) {
    List<Finding> all = new ArrayList<>();
    for (String field : List.of("content", "title")) {
      JsonNode value = record.get(field);
      if (value != null && value.isTextual()) {
        record.set(field, redacted(field, value.asText(), all));
      }
    }
    JsonNode tags = record.get("tags");
    if (tags instanceof ArrayNode array) {
      for (int i = 0; i < array.size(); i++) {
        if (array.get(i).isTextual()) {
          array.set(i, redacted("tags[" + i + "]", array.get(i).asText(), all));
        }
      }
    }
    for (String field : List.of("data", "metadata")) {
      JsonNode value = record.get(field);
      if (value != null && value.isContainerNode()) {
        redactTree(field, value, all);
      }
    }
    return all;
  }

  /** What {@link #redact} would find, without changing the record. */
  public List<Finding> find(JsonNode record) {
    return redact(record.deepCopy());
  }

  private void redactTree(String path, JsonNode node, List<Finding> all) {
    if (node instanceof ObjectNode object) {
      List<String> names = new ArrayList<>();
      object.fieldNames().forEachRemaining(names::add);
      for (String name : names) {
        JsonNode child = object.get(name);
        String childPath = path + "." + name;
        if (child.isTextual()) {
          object.set(name, redacted(childPath, child.asText(), all));
        } else {
          redactTree(childPath, child, all);
        }
      }
    } else if (node instanceof ArrayNode array) {
      for (int i = 0; i < array.size(); i++) {
        JsonNode child = array.get(i);
        String childPath = path + "[" + i + "]";
        if (child.isTextual()) {
          array.set(i, redacted(childPath, child.asText(), all));
        } else {
          redactTree(childPath, child, all);
        }
      }
    }
  }

  private TextNode redacted(String field, String text, List<Finding> all) {
    List<Finding> found = scan(field, text);
    if (found.isEmpty()) {
      return TextNode.valueOf(text);
    }
    all.addAll(found);
    StringBuilder out = new StringBuilder(text.length());
    int at = 0;
    for (Finding finding : found) {
      out.append(text, at, finding.start());
      out.append("[REDACTED:").append(finding.kind()).append(']');
      at = finding.end();
    }
    out.append(text, at, text.length());
    return TextNode.valueOf(out.toString());
  }
}
