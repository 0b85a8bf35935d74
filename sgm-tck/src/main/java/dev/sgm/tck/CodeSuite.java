package dev.sgm.tck;

import dev.sgm.api.SgmClient;

/**
 * {@link CodeTck} as the kit runs it, against the server under test, and its entry in the kit: the
 * code profile, run when the target advertises {@code code}.
 */
public final class CodeSuite extends CodeTck implements ProfileSuite {
  @Override
  public String capability() {
    return "code";
  }

  @Override
  protected SgmClient client() {
    return KitRunner.target();
  }
}
