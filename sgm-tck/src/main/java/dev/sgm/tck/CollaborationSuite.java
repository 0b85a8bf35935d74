package dev.sgm.tck;

import dev.sgm.api.SgmClient;

/**
 * {@link CollaborationTck} as the kit runs it, against the server under test, and its entry in the
 * kit: the collaboration profile (CONTRACT §7), run when the target advertises {@code
 * collaboration}.
 */
public final class CollaborationSuite extends CollaborationTck implements ProfileSuite {
  @Override
  public String capability() {
    return "collaboration";
  }

  @Override
  protected SgmClient client() {
    return KitRunner.target();
  }
}
