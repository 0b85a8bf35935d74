package dev.sgm.api.spi;

/**
 * A {@link java.util.ServiceLoader} provider of record storage. The embedded H2 store is the
 * default; a server database plugs in the same way and must pass the same tests.
 */
public interface StorageProvider extends PluginProvider<Storage, StorageContext> {
  /**
   * Whether a store this provider opens can be open in one process at a time (a database file that
   * the process locks), so that the command line shares it among its user's processes through the
   * one that opened it, and throws {@link StoreInUseException} to say another has it. False (the
   * default) for a database that many processes use at once.
   */
  default boolean oneProcessAtATime() {
    return false;
  }
}
