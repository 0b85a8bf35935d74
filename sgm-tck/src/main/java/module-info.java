/**
 * The SGM conformance kit: abstract JUnit 5 suites (the seed's C1–C12 and the contract's rules)
 * over the {@link dev.sgm.api.SgmClient} interface, so that one suite certifies any implementation
 * over any transport.
 */
module dev.sgm.tck {
  requires transitive dev.sgm.api;
  requires transitive org.junit.jupiter.api;
  requires org.junit.jupiter.params;

  exports dev.sgm.tck;

  opens dev.sgm.tck to
      org.junit.platform.commons;
}
