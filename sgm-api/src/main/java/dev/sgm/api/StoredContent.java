package dev.sgm.api;

/** Content kept by {@code put_content}, as returned by a lookup by hash. */
public record StoredContent(ContentReference reference, byte[] bytes) {}
