/**
 * The collaboration profile: decisions (with supersession), standing rules, status, tasks (atomic
 * claims, legal transitions, dependencies) and handoffs that another tool can resume in one call.
 */
module dev.sgm.profile.collaboration {
  requires transitive dev.sgm.api;

  provides dev.sgm.api.spi.ProfileProvider with
      dev.sgm.profile.collaboration.CollaborationProfileProvider;
}
