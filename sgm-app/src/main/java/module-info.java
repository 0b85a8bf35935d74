/**
 * The {@code sgm} application: its commands (every operation, remember and recall, serve, export
 * and import, tokens, the conformance kit, and the commands plugins add), the sharing of a data
 * directory between the processes of its user (the holder and its local channel), on the embedded
 * store or on a server ({@code --remote}). As the engine's host it advertises {@code cli}.
 */
module dev.sgm.app {
  requires transitive dev.sgm.api;
  requires dev.sgm.core;
  requires info.picocli;
  requires java.logging;

  opens dev.sgm.app to
      info.picocli;
}
