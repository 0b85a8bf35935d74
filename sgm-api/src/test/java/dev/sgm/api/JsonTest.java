package dev.sgm.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonTest {
  @Test
  void numbersAndKeyOrderRoundTripExactly() {
    String text =
        "{\"z\":1.0,\"a\":12345678901234567890,\"m\":-0.0,\"e\":1e5,\"E\":2.5E-3,\"t\":0.1000,"
            + "\"n\":[-0,1E+2,3.14159265358979323846264338327950288],\"s\":\"\\u00e9\u6f22\",\"b\":true,\"x\":null}";
    JsonNode node = Json.parse(text);
    assertEquals(text.replace("\\u00e9", "é"), Json.write(node));
    assertEquals(
        text.replace("\\u00e9", "é"),
        Json.write(Json.parse(text.getBytes(StandardCharsets.UTF_8))));
  }

  @Test
  void numbersCompareByTheirText() {
    assertNotEquals(Json.parse("{\"a\":1.0}"), Json.parse("{\"a\":1}"));
    assertEquals(Json.parse("{\"a\":1.0,\"b\":2}"), Json.parse("{\"b\":2,\"a\":1.0}"));
    JsonNode big = Json.parse("12345678901234567890");
    assertTrue(big.isIntegralNumber());
    assertEquals("12345678901234567890", big.bigIntegerValue().toString());
  }

  @Test
  void malformedInputIsAnInvalidRequestSayingWhere() {
    SgmException e = assertThrows(SgmException.class, () -> Json.parse("{\"a\": }"));
    assertEquals(ErrorCode.INVALID_REQUEST, e.code());
    assertTrue(e.getMessage().contains("line 1"), e.getMessage());
    assertThrows(SgmException.class, () -> Json.parse("{\"a\":1,\"a\":2}"), "duplicate keys");
    assertThrows(SgmException.class, () -> Json.parse("{} {}"), "trailing content");
    assertThrows(SgmException.class, () -> Json.parse(""), "empty");
    assertThrows(SgmException.class, () -> Json.parse("[".repeat(Json.MAX_NESTING_DEPTH + 1)));
    byte[] badUtf8 = {'"', (byte) 0xC3, (byte) 0x28, '"'};
    assertEquals(
        ErrorCode.INVALID_REQUEST,
        assertThrows(SgmException.class, () -> Json.parse(badUtf8)).code());
  }

  @Test
  void theMapperBindsTreesLosslessly() throws Exception {
    record Holder(JsonNode value) {}
    Holder holder = Json.mapper().readValue("{\"value\":{\"n\":1.50}}", Holder.class);
    assertEquals("{\"n\":1.50}", Json.write(holder.value()));
  }
}
