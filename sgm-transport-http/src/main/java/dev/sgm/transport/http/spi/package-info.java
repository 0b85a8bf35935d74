/**
 * The HTTP transport's own plugins: web apps served beside the API (the console is one). A module
 * {@code provides dev.sgm.transport.http.spi.WebAppProvider}; the transport names none of them.
 */
package dev.sgm.transport.http.spi;
