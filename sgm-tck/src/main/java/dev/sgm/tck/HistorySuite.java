package dev.sgm.tck;

import dev.sgm.api.SgmClient;

/**
 * {@link HistoryTck} as the kit runs it, against the server under test, and its entry in the kit:
 * the history profile, run when the target advertises {@code history}.
 */
public final class HistorySuite extends HistoryTck implements ProfileSuite {
  @Override
  public String capability() {
    return "history";
  }

  @Override
  protected SgmClient client() {
    return KitRunner.target();
  }
}
