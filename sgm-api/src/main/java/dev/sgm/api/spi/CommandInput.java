package dev.sgm.api.spi;

import java.util.List;
import java.util.Map;

/** What the user gave a plugin's command, by the names its declaration gave them. */
public interface CommandInput {
  /** The value of the option {@code name} (with its dashes), its default, or null. */
  String option(String name);

  /** Every value of a repeatable option, in order; empty when not given. */
  List<String> options(String name);

  /** The {@code KEY=VALUE} pairs of a pairs option, in order. */
  Map<String, String> pairs(String name);

  /** Whether a flag was given. */
  boolean flag(String name);

  /** The positional argument at {@code index}, or null when left out. */
  String argument(int index);
}
