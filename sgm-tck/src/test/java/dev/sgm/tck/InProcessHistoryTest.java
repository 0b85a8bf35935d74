package dev.sgm.tck;

import dev.sgm.api.SgmClient;

/** The history suite against the engine in this JVM, with the history profile on the class path. */
class InProcessHistoryTest extends HistoryTck {
  @Override
  protected SgmClient client() {
    return InProcess.client();
  }
}
