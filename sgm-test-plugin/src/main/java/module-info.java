/**
 * A profile plugin as a third party would write it, against the API alone: the {@code example}
 * profile owns the {@code greeting} record type and adds the {@code example.greet} operation, and
 * ships its conformance suite for the kit to run ({@code sgm tck}) when the kit is there.
 */
module dev.sgm.example {
  requires dev.sgm.api;
  requires static dev.sgm.tck;
  requires static org.junit.jupiter.api;

  opens dev.sgm.example.tck to
      org.junit.platform.commons;

  provides dev.sgm.api.spi.ProfileProvider with
      dev.sgm.example.ExampleProfileProvider;
  provides dev.sgm.tck.ProfileSuite with
      dev.sgm.example.tck.ExampleSuite;
}
