package dev.sgm.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.FieldError;
import dev.sgm.api.RawNumberNode;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * What a write does with a credential found in it ({@code secrets.on-detect}): {@code redact} (the
 * default) replaces it with {@code [REDACTED:<kind>]} before anything is stored, indexed, embedded,
 * audited or sent to a watcher, and lists what it replaced in {@code metadata.sgm_redactions};
 * {@code reject} refuses the write as {@code invalid_record} naming the field and the kind; {@code
 * allow} stores it as written (for a deployment that has its own scanning; a warning at start).
 *
 * <p>A scan that fails (a profile's detector throws) fails the write closed: {@code internal},
 * nothing written, and the server goes on serving.
 */
public final class SecretPolicy {
  /** What a write does with a credential found in it. */
  public enum Action {
    REDACT,
    REJECT,
    ALLOW;

    /** Its name in configuration and discovery. */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private static final System.Logger LOG = System.getLogger(SecretPolicy.class.getName());

  /** Where a redaction is recorded on the record. */
  public static final String REDACTIONS = "sgm_redactions";

  private final Action action;
  private final SecretScanner scanner;

  SecretPolicy(Action action, SecretScanner scanner) {
    this.action = action;
    this.scanner = scanner;
  }

  /**
   * The policy {@code config} names ({@link ConfigLoader#SECRETS_ON_DETECT}), finding credentials
   * with {@code scanner}.
   */
  static SecretPolicy of(Config config, SecretScanner scanner) {
    String value = config.get(ConfigLoader.SECRETS_ON_DETECT, "redact");
    Action action =
        switch (value.toLowerCase(Locale.ROOT)) {
          case "redact" -> Action.REDACT;
          case "reject" -> Action.REJECT;
          case "allow" -> Action.ALLOW;
          default ->
              throw new SgmException(
                  ErrorCode.INVALID_REQUEST,
                  "configuration "
                      + ConfigLoader.SECRETS_ON_DETECT
                      + ": must be redact, reject or allow, not '"
                      + value
                      + "'");
        };
    if (action == Action.ALLOW) {
      LOG.log(
          System.Logger.Level.WARNING,
          ConfigLoader.SECRETS_ON_DETECT
              + "=allow: credentials written to this memory are stored as written and shared with"
              + " every reader");
    }
    return new SecretPolicy(action, scanner);
  }

  /** What a write does with a credential found in it. */
  public Action action() {
    return action;
  }

  /** Applies the policy to a record about to be written (a private copy, changed in place). */
  void apply(ObjectNode record) {
    if (action == Action.ALLOW) {
      return;
    }
    List<SecretScanner.Finding> found =
        action == Action.REJECT ? find(record) : failClosed(() -> scanner.redact(record));
    if (found.isEmpty()) {
      return;
    }
    if (action == Action.REJECT) {
      throw refused(found);
    }
    metadata(record).set(REDACTIONS, describeFindings(found));
  }

  /**
   * The credentials in a record, whatever the policy (for reporting what is already stored), or
   * {@code internal} when the scan fails.
   */
  List<SecretScanner.Finding> find(JsonNode record) {
    return failClosed(() -> scanner.find(record));
  }

  /**
   * Redacts the credentials in a record in place, whatever the policy (to clean what is already
   * stored), recording them in {@code metadata.sgm_redactions}; what it found.
   */
  List<SecretScanner.Finding> redact(ObjectNode record) {
    List<SecretScanner.Finding> found = failClosed(() -> scanner.redact(record));
    if (!found.isEmpty()) {
      JsonNode earlier = metadata(record).get(REDACTIONS);
      ArrayNode all = earlier instanceof ArrayNode list ? list : dev.sgm.api.Json.array();
      all.addAll(describeFindings(found));
      metadata(record).set(REDACTIONS, all);
    }
    return found;
  }

  /** A scan, or {@code internal} if it fails: text a scan could not finish is never let through. */
  private static List<SecretScanner.Finding> failClosed(
      java.util.function.Supplier<List<SecretScanner.Finding>> scan) {
    try {
      return scan.get();
    } catch (RuntimeException | StackOverflowError e) {
      LOG.log(System.Logger.Level.ERROR, "the credential scan failed; the write is refused", e);
      throw new SgmException(
          ErrorCode.INTERNAL,
          "the credential scan failed (" + e.getClass().getSimpleName() + "); nothing was written");
    }
  }

  /**
   * Applies the policy to text content about to be put: the text with its credentials replaced, or
   * the refusal. Binary content is not scanned (it is not text), and passes as it is.
   */
  byte[] applyToText(byte[] bytes) {
    if (action == Action.ALLOW) {
      return bytes;
    }
    // The text as a record's content, so that one rule decides both.
    String text = new String(bytes, StandardCharsets.UTF_8);
    ObjectNode holder = dev.sgm.api.Json.object().put("content", text);
    apply(holder);
    String after = holder.path("content").asText();
    return after.equals(text) ? bytes : after.getBytes(StandardCharsets.UTF_8);
  }

  private static SgmException refused(List<SecretScanner.Finding> found) {
    SecretScanner.Finding first = found.get(0);
    String reason = "holds a credential (" + first.kind() + "); secrets are not stored";
    return new SgmException(
        ErrorCode.INVALID_RECORD,
        first.field() + ": " + reason,
        found.stream()
            .map(f -> new FieldError(f.field(), "holds a credential (" + f.kind() + ")"))
            .distinct()
            .toList());
  }

  private static ArrayNode describeFindings(List<SecretScanner.Finding> found) {
    ArrayNode list = dev.sgm.api.Json.array();
    for (SecretScanner.Finding finding : found) {
      list.addObject()
          .put("kind", finding.kind())
          .put("field", finding.field())
          // A raw number, as the wire's numbers are parsed, so that a store of the same record
          // again compares equal to the stored one and changes nothing.
          .set("position", RawNumberNode.of(finding.start()));
    }
    return list;
  }

  /** The record's {@code metadata} object, made when absent. */
  private static ObjectNode metadata(ObjectNode record) {
    return record.get("metadata") instanceof ObjectNode metadata
        ? metadata
        : record.putObject("metadata");
  }

  /** Discovery's {@code secrets} object: the policy in force and the kinds detected. */
  ObjectNode describe() {
    ObjectNode secrets = dev.sgm.api.Json.object().put("on_detect", action.wireName());
    scanner.kinds().forEach(secrets.putArray("detectors")::add);
    return secrets;
  }
}
