/**
 * The code intelligence profile: symbols, code references and diffs that agents learn about a code
 * base and share, so the next session does not rediscover them.
 */
module dev.sgm.profile.code {
  requires transitive dev.sgm.api;
  requires io.github.javadiffutils;

  provides dev.sgm.api.spi.ProfileProvider with
      dev.sgm.profile.code.CodeProfileProvider;
  // sgm code import-diff and import-symbols, which the command line adds to its own.
  provides dev.sgm.api.spi.CommandProvider with
      dev.sgm.profile.code.CodeCommands;
}
