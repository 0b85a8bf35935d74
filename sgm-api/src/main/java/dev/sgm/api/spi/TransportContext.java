package dev.sgm.api.spi;

import dev.sgm.api.SgmService;

/** What the core hands a transport when creating it. */
public interface TransportContext {
  /** The operations to expose. */
  SgmService service();
}
