package dev.sgm.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.api.JsonSchemas;
import dev.sgm.api.RequestReader;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Profile;
import dev.sgm.api.spi.ProfileContext;
import dev.sgm.api.spi.ProfileOperation;
import dev.sgm.api.spi.ProfileProvider;
import dev.sgm.api.spi.RecordType;
import java.util.List;

/**
 * A test profile, found through META-INF/services on the test class path: owns type {@code widget}
 * (its {@code data.size} must be a number), adds {@code widgets.count}, and keeps deleted records
 * when {@code example.keep-deleted=true}.
 */
public final class ExampleProfileProvider implements ProfileProvider {
  @Override
  public String name() {
    return "example";
  }

  @Override
  public Profile create(Config config, ProfileContext context) {
    boolean keepDeleted = config.getBoolean("example.keep-deleted", false);
    return new Profile() {
      @Override
      public List<String> features() {
        return List.of("widgets");
      }

      @Override
      public List<RecordType> recordTypes() {
        return List.of(
            new RecordType(
                "widget",
                JsonSchemas.object()
                    .required("size", JsonSchemas.integer("How big.", 0, 1000))
                    .build()));
      }

      @Override
      public void validate(ObjectNode record) {
        if (!record.path("data").path("size").isNumber()) {
          throw SgmException.invalidRecord("data.size", "must be a number");
        }
      }

      @Override
      public boolean keepsHistory() {
        return keepDeleted;
      }

      @Override
      public List<ProfileOperation> operations() {
        return List.of(
            new ProfileOperation() {
              @Override
              public String name() {
                return "widgets.count";
              }

              @Override
              public String description() {
                return "Counts the widgets in a scope.";
              }

              @Override
              public JsonNode invoke(Caller caller, JsonNode request) {
                RequestReader reader = RequestReader.of(request);
                RetrieveQuery query =
                    RetrieveQuery.builder(reader.requireScope("scope"))
                        .types(List.of("widget"))
                        .limit(1)
                        .build();
                reader.finish();
                ObjectNode response = Json.object();
                response.put("count", context.service().retrieve(caller, query).total());
                return response;
              }
            });
      }
    };
  }
}
