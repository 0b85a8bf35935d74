package dev.sgm.transport.http.spi;

/**
 * What the HTTP transport tells a web app when creating it.
 *
 * @param authenticates whether the API behind it asks every request for a bearer token
 */
public record WebAppContext(boolean authenticates) {}
