package dev.sgm.core;

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
 */
public enum SecretPolicy {
  REDACT,
  REJECT,
  ALLOW;

  private static final System.Logger LOG = System.getLogger(SecretPolicy.class.getName());

  /** Where a redaction is recorded on the record. */
  public static final String REDACTIONS = "sgm_redactions";

  /** The policy {@code config} names ({@link ConfigLoader#SECRETS_ON_DETECT}). */
  static SecretPolicy of(Config config) {
    String value = config.get(ConfigLoader.SECRETS_ON_DETECT, "redact");
    SecretPolicy policy =
        switch (value.toLowerCase(Locale.ROOT)) {
          case "redact" -> REDACT;
          case "reject" -> REJECT;
          case "allow" -> ALLOW;
          default ->
              throw new SgmException(
                  ErrorCode.INVALID_REQUEST,
                  "configuration "
                      + ConfigLoader.SECRETS_ON_DETECT
                      + ": must be redact, reject or allow, not '"
                      + value
                      + "'");
        };
    if (policy == ALLOW) {
      LOG.log(
          System.Logger.Level.WARNING,
          ConfigLoader.SECRETS_ON_DETECT
              + "=allow: credentials written to this memory are stored as written and shared with"
              + " every reader");
    }
    return policy;
  }

  /** Its name in configuration and discovery. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Applies the policy to a record about to be written (a private copy, changed in place). */
  void apply(ObjectNode record) {
    if (this == ALLOW) {
      return;
    }
    List<SecretScanner.Finding> found =
        this == REJECT ? SecretScanner.find(record) : SecretScanner.redact(record);
    if (found.isEmpty()) {
      return;
    }
    if (this == REJECT) {
      throw refused(found);
    }
    metadata(record).set(REDACTIONS, describeFindings(found));
  }

  /**
   * Applies the policy to text content about to be put: the text with its credentials replaced, or
   * the refusal. Binary content is not scanned (it is not text), and passes as it is.
   */
  byte[] applyToText(byte[] bytes) {
    if (this == ALLOW) {
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
    ObjectNode secrets = dev.sgm.api.Json.object().put("on_detect", wireName());
    SecretScanner.KINDS.forEach(secrets.putArray("detectors")::add);
    return secrets;
  }
}
