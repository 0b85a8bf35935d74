package dev.sgm.transport.http.spi;

import dev.sgm.api.spi.PluginProvider;

/**
 * A {@link java.util.ServiceLoader} provider of a web app that the HTTP transport mounts. Web apps
 * are plugins of the kind {@code webapp}: all present are served unless {@code webapps.disabled}
 * names them, or {@code webapps.enabled} names others ({@code SGM_WEBAPPS_DISABLED=console}).
 */
public interface WebAppProvider extends PluginProvider<WebApp, WebAppContext> {}
