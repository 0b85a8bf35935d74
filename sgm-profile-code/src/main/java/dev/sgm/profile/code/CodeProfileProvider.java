package dev.sgm.profile.code;

import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Profile;
import dev.sgm.api.spi.ProfileContext;
import dev.sgm.api.spi.ProfileProvider;
import java.util.Set;

/** Provides the {@code code} profile. */
public final class CodeProfileProvider implements ProfileProvider {
  @Override
  public String name() {
    return "code";
  }

  @Override
  public int order() {
    return 25;
  }

  @Override
  public Set<String> configKeys() {
    return Set.of(CodeProfile.SCAN_LIMIT);
  }

  @Override
  public Profile create(Config config, ProfileContext context) {
    return new CodeProfile(
        context, config.getInt(CodeProfile.SCAN_LIMIT, CodeProfile.DEFAULT_SCAN_LIMIT));
  }
}
