/**
 * The history profile: every version of every record kept with its writer and time, soft deletes,
 * restore and undelete, and snapshots (named points in the write sequence) that can be queried and
 * restored.
 */
module dev.sgm.profile.history {
  requires transitive dev.sgm.api;

  provides dev.sgm.api.spi.ProfileProvider with
      dev.sgm.profile.history.HistoryProfileProvider;
}
