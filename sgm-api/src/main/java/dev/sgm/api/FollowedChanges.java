package dev.sgm.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.List;

/**
 * A {@link ChangeStream} over any {@link SgmClient} that has no live watch of its own (a server
 * reached by requests and answers, a data directory another process holds): it follows the {@code
 * changes} operation from cursor to cursor, asking again every {@link #INTERVAL} while nothing new
 * has committed. Events come exactly once and in commit order, as the feed gives them.
 */
public final class FollowedChanges implements ChangeStream {
  /** How long it waits between two empty answers. */
  public static final Duration INTERVAL = Duration.ofMillis(250);

  private final SgmClient client;
  private final ObjectNode request;
  private volatile String cursor;
  private volatile boolean closed;

  private FollowedChanges(SgmClient client, ChangesRequest request) {
    this.client = client;
    this.request = request.toJson();
    this.request.remove("since");
    // Without a cursor the stream starts at the present, as a live watch does.
    this.cursor =
        request.since() != null
            ? request.since()
            : client.call(Operations.CHANGES, this.request).path("next").asText();
  }

  /** A live watch of {@code client} where it offers one, else one that follows {@code changes}. */
  public static ChangeStream watch(SgmClient client, ChangesRequest request) {
    return client.watch(request).orElseGet(() -> new FollowedChanges(client, request));
  }

  @Override
  public Batch poll(Duration timeout) throws InterruptedException {
    if (closed) {
      throw new SgmException(ErrorCode.UNAVAILABLE, "the watch has ended: it was closed");
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!closed) {
      ObjectNode page = request.deepCopy();
      page.put("since", cursor);
      ChangesResult result = ChangesResult.fromJson(client.call(Operations.CHANGES, page));
      cursor = result.next();
      if (!result.events().isEmpty()) {
        return new Batch(result.events(), false);
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      Thread.sleep(Math.max(1, Math.min(INTERVAL.toMillis(), left / 1_000_000)));
    }
    return new Batch(List.of(), false);
  }

  @Override
  public String cursor() {
    return cursor;
  }

  @Override
  public void close() {
    closed = true;
  }
}
