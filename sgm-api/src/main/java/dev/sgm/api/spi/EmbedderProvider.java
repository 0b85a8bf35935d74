package dev.sgm.api.spi;

/**
 * A {@link java.util.ServiceLoader} provider of an embedding model. With none present (or all
 * disabled, {@code embedders.disabled}), retrieval is lexical only.
 */
public interface EmbedderProvider extends PluginProvider<Embedder, EmbedderContext> {}
