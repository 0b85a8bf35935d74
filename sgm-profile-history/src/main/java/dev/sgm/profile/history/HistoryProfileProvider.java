package dev.sgm.profile.history;

import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Profile;
import dev.sgm.api.spi.ProfileContext;
import dev.sgm.api.spi.ProfileProvider;

/** Provides the {@code history} profile. */
public final class HistoryProfileProvider implements ProfileProvider {
  @Override
  public String name() {
    return "history";
  }

  @Override
  public int order() {
    return 30;
  }

  @Override
  public Profile create(Config config, ProfileContext context) {
    return new HistoryProfile(context);
  }
}
