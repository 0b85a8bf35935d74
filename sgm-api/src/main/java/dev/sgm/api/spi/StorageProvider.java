package dev.sgm.api.spi;

/**
 * A {@link java.util.ServiceLoader} provider of record storage. The embedded H2 store is the
 * default; a server database plugs in the same way and must pass the same tests.
 */
public interface StorageProvider extends PluginProvider<Storage, StorageContext> {}
