package dev.sgm.api.spi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.JsonSchemas;
import dev.sgm.api.OperationEffects;
import java.util.Objects;
import java.util.function.BiFunction;

/**
 * One operation a profile adds, such as {@code tasks.claim}: a wire name, a title and a one-line
 * description, the JSON Schemas of its request and response, its {@linkplain OperationEffects
 * effects}, and a JSON-in, JSON-out body. Discovery publishes all but the body, and every transport
 * builds its route, tool or method from them. Declare one with {@link #named(String)}.
 */
public interface ProfileOperation {
  /** The wire name, {@code <area>.<verb>}, e.g. {@code history.versions}. */
  String name();

  /** A short title for people, e.g. "Claim a task"; by default made from the name. */
  default String title() {
    return null;
  }

  /** What it is for, one sentence; shown in tool listings and help. */
  String description();

  /** The JSON Schema (draft 2020-12) of its request; by default any object. */
  default ObjectNode requestSchema() {
    return JsonSchemas.object().build();
  }

  /** The JSON Schema of its response; null when undeclared (then any object). */
  default ObjectNode responseSchema() {
    return null;
  }

  /**
   * What running it does; by default {@link OperationEffects#WRITE}, the safe assumption (never
   * sent again after a lost answer, not offered as read-only).
   */
  default OperationEffects effects() {
    return OperationEffects.WRITE;
  }

  /** Runs the operation. Fails with {@link dev.sgm.api.SgmException}. */
  JsonNode invoke(Caller caller, JsonNode request);

  /**
   * An operation from its name, description, request schema and body, declaring no response schema
   * and the default effects.
   */
  static ProfileOperation of(
      String name,
      String description,
      ObjectNode requestSchema,
      BiFunction<Caller, JsonNode, JsonNode> body) {
    return named(name).description(description).request(requestSchema).body(body);
  }

  /** Starts the declaration of the operation {@code name}. */
  static Declaration named(String name) {
    return new Declaration(name);
  }

  /** An operation's declaration under construction; {@link #body} finishes it. */
  final class Declaration {
    private final String name;
    private String title;
    private String description = "";
    private ObjectNode request = JsonSchemas.object().build();
    private ObjectNode response;
    private OperationEffects effects = OperationEffects.WRITE;

    private Declaration(String name) {
      this.name = Objects.requireNonNull(name, "name");
    }

    public Declaration title(String title) {
      this.title = title;
      return this;
    }

    public Declaration description(String description) {
      this.description = Objects.requireNonNull(description, "description");
      return this;
    }

    public Declaration request(ObjectNode schema) {
      this.request = Objects.requireNonNull(schema, "request schema");
      return this;
    }

    public Declaration response(ObjectNode schema) {
      this.response = schema;
      return this;
    }

    public Declaration effects(OperationEffects effects) {
      this.effects = Objects.requireNonNull(effects, "effects");
      return this;
    }

    /** Only reads: {@link OperationEffects#READ}. */
    public Declaration readOnly() {
      return effects(OperationEffects.READ);
    }

    /** The declared operation, running {@code body}. */
    public ProfileOperation body(BiFunction<Caller, JsonNode, JsonNode> body) {
      Objects.requireNonNull(body, "body");
      String name = this.name;
      String title = this.title;
      String description = this.description;
      ObjectNode request = this.request.deepCopy();
      ObjectNode response = this.response == null ? null : this.response.deepCopy();
      OperationEffects effects = this.effects;
      return new ProfileOperation() {
        @Override
        public String name() {
          return name;
        }

        @Override
        public String title() {
          return title;
        }

        @Override
        public String description() {
          return description;
        }

        @Override
        public ObjectNode requestSchema() {
          return request.deepCopy();
        }

        @Override
        public ObjectNode responseSchema() {
          return response == null ? null : response.deepCopy();
        }

        @Override
        public OperationEffects effects() {
          return effects;
        }

        @Override
        public JsonNode invoke(Caller caller, JsonNode json) {
          return body.apply(caller, json);
        }
      };
    }
  }
}
