package dev.sgm.tck.storage;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The rule of the storage specification ({@code docs/spec/storage.md}) that a test of the storage
 * suite checks, such as {@code storage: change log}, and how strongly the specification states it.
 *
 * <p>The same shape as {@code dev.sgm.tck.Requirement} of the protocol suites, which this module
 * does not depend on: {@code sgm-tck} runs its suites on the {@code h2} storage, whose tests run
 * this suite.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Requirement {
  /** The rule's name in the storage specification, such as {@code storage: change log}. */
  String rule();

  /** How strongly the specification states it. */
  Level level() default Level.MUST;

  /** RFC 2119 strength. */
  enum Level {
    MUST,
    SHOULD
  }
}
