package dev.sgm.api;

/**
 * The wire names of the core operations, for code that calls one by name: clients, transports'
 * conveniences and commands. The operations themselves (what each takes, answers and does) are
 * declared once, in the core; a profile's operations are named only in their profile's
 * declarations.
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

  private Operations() {}
}
