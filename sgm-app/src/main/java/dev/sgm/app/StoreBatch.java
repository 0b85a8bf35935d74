package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.Operations;
import dev.sgm.api.SgmException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code sgm store-batch RECORDS}: stores a JSON array of records atomically. */
@Command(
    name = "store-batch",
    mixinStandardHelpOptions = true,
    description = "Store up to 1000 records atomically: a JSON array, or JSON Lines.")
final class StoreBatch extends OperationCommand {
  @Parameters(
      arity = "0..1",
      paramLabel = "RECORDS",
      description = "A JSON array of records, @file, or - (standard input).")
  String records;

  @Override
  String operation() {
    return Operations.STORE_BATCH;
  }

  @Override
  JsonNode request() {
    JsonNode json = JsonIo.read(records, "records");
    ArrayNode array;
    if (json.isArray()) {
      array = (ArrayNode) json;
    } else if (json.has("records")) {
      array = (ArrayNode) json.get("records");
    } else {
      throw SgmException.invalidRequest("records", "must be a JSON array of records");
    }
    array.forEach(Store::markOrigin);
    ObjectNode request = Json.object();
    request.set("records", array);
    return request;
  }
}
