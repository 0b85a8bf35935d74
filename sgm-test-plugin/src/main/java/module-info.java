/**
 * A profile plugin as a third party would write it, against the API alone: the {@code example}
 * profile owns the {@code greeting} record type and adds the {@code example.greet} operation.
 */
module dev.sgm.example {
  requires dev.sgm.api;

  provides dev.sgm.api.spi.ProfileProvider with
      dev.sgm.example.ExampleProfileProvider;
}
