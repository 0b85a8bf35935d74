package dev.sgm.api.spi;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Finds credentials of a format the core does not know (an organisation's own tokens, a service's
 * keys) in text about to be written. A profile offers its detectors through {@link
 * Profile#secretDetectors()}; the core runs them beside its own on every write, and what they find
 * is redacted or refused as {@code secrets.on-detect} says. A detector that throws fails the write
 * ({@code internal}, nothing written): a scan that could not finish never lets text through.
 */
public interface SecretDetector {
  /** Kinds are lowercase words joined by underscores, e.g. {@code acme_api_key}. */
  Pattern KIND = Pattern.compile("[a-z][a-z0-9_]{0,47}");

  /** The kinds this detector reports, for discovery. */
  List<String> kinds();

  /**
   * The credentials in {@code text}: each one's kind (one of {@link #kinds()}) and span. Must take
   * time linear in the text's length (it runs on every write) and be safe to call from many threads
   * at once.
   */
  List<Match> find(String text);

  /** One credential found: its kind and where it is, {@code start} inclusive, {@code end} not. */
  record Match(String kind, int start, int end) {}
}
