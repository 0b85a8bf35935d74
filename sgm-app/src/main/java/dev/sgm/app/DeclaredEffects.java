package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.DiscoveryDocument;
import dev.sgm.api.Json;
import dev.sgm.api.OperationEffects;
import java.util.HashMap;
import java.util.Map;

/**
 * The resend policy of a shared directory's calls: what each operation declares it does, and so
 * whether a call whose answer was lost may be sent again. A client asks its holder once, before the
 * first call that needs it, and keeps the answer through hand-overs.
 */
final class DeclaredEffects {
  /** The effects of the holder's operations, by name, once asked for. */
  private volatile Map<String, OperationEffects> known = Map.of();

  /**
   * What {@code operation} does, as the holder behind {@code client} declares it (asked while the
   * holder answers). The channel's own operations only read.
   */
  OperationEffects of(HolderClient client, String origin, String operation)
      throws HolderClient.NotSent, HolderClient.Lost {
    if (operation.startsWith(LocalChannel.CHANNEL_PREFIX)) {
      return OperationEffects.READ;
    }
    Map<String, OperationEffects> declared = known;
    if (!declared.containsKey(operation)) {
      Map<String, OperationEffects> fetched = new HashMap<>();
      client
          .call(origin, LocalChannel.EFFECTS, Json.object(), true, SharedDirectory.NO_PROGRESS)
          .properties()
          .forEach(e -> fetched.put(e.getKey(), OperationEffects.fromJson(e.getValue())));
      known = declared = Map.copyOf(fetched);
    }
    return declared.getOrDefault(operation, OperationEffects.WRITE);
  }

  /**
   * Whether {@code request} to {@code operation} of the engine this process holds would be sent
   * again after its answer was lost.
   */
  static boolean sameEffectIfSentAgain(
      DiscoveryDocument discovery, String operation, JsonNode request) {
    return operation.startsWith(LocalChannel.CHANNEL_PREFIX)
        || discovery.operations().stream()
            .filter(op -> op.name().equals(operation))
            .anyMatch(op -> op.effects().sameEffectIfSentAgain(request));
  }
}
