/**
 * The SGM conformance kit: abstract JUnit 5 suites (the seed's C1–C12 and the contract's rules)
 * over the {@link dev.sgm.api.SgmClient} interface, so that one suite certifies any implementation
 * over any transport; and the runner that {@code sgm tck URL} finds as a {@link
 * dev.sgm.api.spi.ConformanceKit}, which runs each profile's suite that a {@link
 * dev.sgm.tck.ProfileSuite} provider brings, this module's own and a plugin's alike.
 */
module dev.sgm.tck {
  requires transitive dev.sgm.api;
  requires transitive org.junit.jupiter.api;
  requires org.junit.jupiter.params;
  requires org.junit.platform.launcher;
  requires org.junit.platform.reporting;

  exports dev.sgm.tck;

  opens dev.sgm.tck to
      org.junit.platform.commons;

  uses dev.sgm.tck.ProfileSuite;

  provides dev.sgm.api.spi.ConformanceKit with
      dev.sgm.tck.KitRunner;
  provides dev.sgm.tck.ProfileSuite with
      dev.sgm.tck.CollaborationSuite,
      dev.sgm.tck.CodeSuite,
      dev.sgm.tck.HistorySuite;
}
