package dev.sgm.tck;

import dev.sgm.api.SgmClient;

/**
 * The collaboration suite against the engine in this JVM, with the collaboration profile on the
 * class path.
 */
class InProcessCollaborationTest extends CollaborationTck {
  @Override
  protected SgmClient client() {
    return InProcess.client();
  }
}
