package dev.sgm.api;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.node.NumericNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Objects;

/**
 * A JSON number kept as the exact text the client wrote, so that {@code 1.0}, {@code 1e5}, {@code
 * -0} and {@code 12345678901234567890} are written back exactly as received. Jackson's own numeric
 * nodes normalise such numbers, which would break the contract's lossless rule.
 */
public final class RawNumberNode extends NumericNode {
  private static final long serialVersionUID = 1L;

  private final String text;

  /** A node for {@code text}, which must already be a valid JSON number (the parser checked it). */
  public RawNumberNode(String text) {
    this.text = Objects.requireNonNull(text, "text");
  }

  /** A node for a Java {@code long}. */
  public static RawNumberNode of(long value) {
    return new RawNumberNode(Long.toString(value));
  }

  /** The number's text exactly as written. */
  public String text() {
    return text;
  }

  private boolean integral() {
    return text.indexOf('.') < 0 && text.indexOf('e') < 0 && text.indexOf('E') < 0;
  }

  @Override
  public JsonToken asToken() {
    return integral() ? JsonToken.VALUE_NUMBER_INT : JsonToken.VALUE_NUMBER_FLOAT;
  }

  @Override
  public JsonParser.NumberType numberType() {
    if (!integral()) {
      return JsonParser.NumberType.BIG_DECIMAL;
    }
    BigInteger value = bigIntegerValue();
    if (value.bitLength() < 32) {
      return JsonParser.NumberType.INT;
    }
    return value.bitLength() < 64 ? JsonParser.NumberType.LONG : JsonParser.NumberType.BIG_INTEGER;
  }

  @Override
  public boolean isIntegralNumber() {
    return integral();
  }

  @Override
  public boolean isFloatingPointNumber() {
    return !integral();
  }

  @Override
  public Number numberValue() {
    return integral() ? bigIntegerValue() : decimalValue();
  }

  @Override
  public int intValue() {
    return decimalValue().intValue();
  }

  @Override
  public long longValue() {
    return decimalValue().longValue();
  }

  @Override
  public double doubleValue() {
    return Double.parseDouble(text);
  }

  @Override
  public BigDecimal decimalValue() {
    return new BigDecimal(text);
  }

  @Override
  public BigInteger bigIntegerValue() {
    return decimalValue().toBigInteger();
  }

  @Override
  public boolean canConvertToInt() {
    return canConvertToLong() && longValue() == intValue();
  }

  @Override
  public boolean canConvertToLong() {
    BigDecimal value = decimalValue();
    return value.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) >= 0
        && value.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0;
  }

  @Override
  public boolean isNaN() {
    return false;
  }

  @Override
  public String asText() {
    return text;
  }

  @Override
  public void serialize(JsonGenerator generator, SerializerProvider provider) throws IOException {
    generator.writeNumber(text);
  }

  /** Equal when written the same way: {@code 1.0} and {@code 1} are different documents. */
  @Override
  public boolean equals(Object other) {
    return other instanceof RawNumberNode that && text.equals(that.text);
  }

  @Override
  public int hashCode() {
    return text.hashCode();
  }
}
