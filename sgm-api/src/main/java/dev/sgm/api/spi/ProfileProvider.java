package dev.sgm.api.spi;

/** A {@link java.util.ServiceLoader} provider of an optional capability profile. */
public interface ProfileProvider extends PluginProvider<Profile, ProfileContext> {}
