package dev.sgm.transport.grpc;

import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import java.io.InputStream;

/**
 * A request as the server received it: the parsed message, or why its bytes are not one. The
 * server's methods read requests through {@link #marshaller}, so that bytes that are not a valid
 * message reach the call as an {@code invalid_request} answer rather than failing inside gRPC
 * (which would answer UNKNOWN and log a stack trace for each such call).
 *
 * @param message the parsed request, or null when the bytes were not a valid message
 * @param type the full name of the message type the method expects
 */
record Incoming(Message message, String type) {
  /** A server-side marshaller that never throws on parse. */
  static MethodDescriptor.Marshaller<Incoming> marshaller(MethodDescriptor.Marshaller<?> original) {
    String type = GrpcOperations.builder(original).getDescriptorForType().getFullName();
    return new MethodDescriptor.Marshaller<>() {
      @Override
      public InputStream stream(Incoming value) {
        throw new UnsupportedOperationException("the server only reads requests");
      }

      @Override
      public Incoming parse(InputStream stream) {
        try {
          return new Incoming((Message) original.parse(stream), type);
        } catch (RuntimeException e) {
          // ProtoUtils' marshaller reports bad bytes as a StatusRuntimeException; any failure
          // to read is the client's.
          return new Incoming(null, type);
        }
      }
    };
  }
}
