package dev.sgm.tck;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** The rule a TCK test checks and how strongly the specification states it. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Requirement {
  /**
   * The rule's identifier: a seed case such as {@code C5}, or a contract section such as {@code
   * §1}.
   */
  String rule();

  /** How strongly the specification states it. */
  Level level() default Level.MUST;

  /** RFC 2119 strength. */
  enum Level {
    MUST,
    SHOULD
  }
}
