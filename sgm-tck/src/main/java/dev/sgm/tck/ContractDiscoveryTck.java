package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract's rules of discovery (§4): the document and version negotiation.
 *
 * <p>A section of {@link ContractTck}, which is how to run it: the sections extend one another in
 * the contract's order, so only the kit extends this class.
 */
public abstract class ContractDiscoveryTck extends ContractOperationsTck {
  ContractDiscoveryTck() {}

  // ---- discovery

  @Test
  @DisplayName("§4 discovery declares the scope model, references and limits")
  @Requirement(rule = "§4 discovery")
  void discovery_document() {
    JsonNode d = discovery();
    assertEquals("exact", d.path("scope_model").path("default_mode").asText());
    Set<String> modes = new HashSet<>();
    d.path("scope_model").path("modes").forEach(m -> modes.add(m.asText()));
    assertEquals(Set.of("exact", "descendants", "ancestors", "lineage"), modes);
    assertTrue(d.path("references").path("kinds").isArray());
    assertTrue(d.path("limits").path("max_page_size").asLong() >= 1);
    assertTrue(d.path("supported_versions").isArray());
  }

  @Test
  @DisplayName(
      "§4 accept_versions: a compatible version is accepted, none compatible is unsupported_version")
  @Requirement(rule = "§4 versions")
  void discovery_versionNegotiation() {
    String current = discovery().path("protocol_version").asText();
    JsonNode ok = call("discover", json("{'accept_versions': ['" + current + "', '97.0.0']}"));
    assertEquals(current, ok.path("protocol_version").asText());
    SgmException e =
        expectError(
            ErrorCode.UNSUPPORTED_VERSION,
            () -> call("discover", json("{'accept_versions': ['99.0.0']}")));
    assertTrue(
        e.getMessage().contains(current),
        "the error lists the supported versions: " + e.getMessage());
  }
}
