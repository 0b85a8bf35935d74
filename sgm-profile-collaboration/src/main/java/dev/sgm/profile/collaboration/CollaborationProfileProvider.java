package dev.sgm.profile.collaboration;

import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Profile;
import dev.sgm.api.spi.ProfileContext;
import dev.sgm.api.spi.ProfileProvider;

/** Provides the {@code collaboration} profile. */
public final class CollaborationProfileProvider implements ProfileProvider {
  @Override
  public String name() {
    return "collaboration";
  }

  @Override
  public int order() {
    return 20;
  }

  @Override
  public Profile create(Config config, ProfileContext context) {
    return new CollaborationProfile(context);
  }
}
