package dev.sgm.api;

/**
 * The wire names of the core operations, for code that calls one by name: clients, transports'
 * conveniences and commands. The operations themselves (what each takes, answers and does) are
 * declared once, in the core; a profile's operations are named only in their profile's
 * declarations, but for the brief, which clients ask for by name.
 */
public final class Operations {
  public static final String DISCOVER = "discover";
  public static final String STORE = "store";
  public static final String STORE_BATCH = "store_batch";
  public static final String READ = "read";
  public static final String RETRIEVE = "retrieve";
  public static final String DELETE = "delete";
  public static final String PUT_CONTENT = "put_content";
  public static final String WHOAMI = "whoami";
  public static final String CHANGES = "changes";
  public static final String SCOPES = "scopes";
  public static final String TOKENS_CREATE = "tokens.create";
  public static final String TOKENS_LIST = "tokens.list";
  public static final String TOKENS_REVOKE = "tokens.revoke";
  public static final String SECRETS_SCAN = "secrets.scan";

  /**
   * The brief for a session (the collaboration profile's), which the command line ({@code sgm
   * context}, the agents' hooks) and MCP (the prompt {@code sgm_context}) ask for by name.
   */
  public static final String CONTEXT_BRIEF = "context.brief";

  private Operations() {}
}
