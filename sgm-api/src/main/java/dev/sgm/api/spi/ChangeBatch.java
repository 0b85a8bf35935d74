package dev.sgm.api.spi;

import java.util.List;

/**
 * Committed changes after a sequence number, in sequence order.
 *
 * @param through every change after the asked-for number up to and including this one is in this
 *     batch: a follower that applied the batch is caught up to here
 */
public record ChangeBatch(List<Change> changes, long through) {
  public ChangeBatch {
    changes = List.copyOf(changes);
  }
}
