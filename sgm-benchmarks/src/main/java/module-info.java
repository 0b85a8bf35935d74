/** Load harnesses for SGM: the engine against raw JDBC on the same H2 settings, printing ratios. */
module dev.sgm.bench {
  requires dev.sgm.core;
  requires java.sql;
  requires com.h2database;
}
