package dev.sgm.transport.grpc;

import com.google.protobuf.Descriptors;
import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.grpc.protobuf.ProtoMethodDescriptorSupplier;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which RPC runs which SGM operation, read from the generated descriptors of {@code sgm.proto}:
 * each typed or per-profile RPC names its operation in the {@code (sgm.v1.operation)} method
 * option, and {@code Memory.Invoke} runs any operation by name. The server and the client both ask
 * here, so no table of operations exists in Java.
 */
final class GrpcOperations {
  /** Every service of {@code sgm.v1}, as gRPC describes it (with the schema reflection serves). */
  static final List<ServiceDescriptor> SERVICES = services();

  /** The RPC of each operation that has one, by the operation's wire name. */
  private static final Map<String, MethodDescriptor<?, ?>> BY_OPERATION = byOperation();

  private GrpcOperations() {}

  /** The operation an RPC runs, from its method option; null for {@code Invoke}. */
  static String operation(MethodDescriptor<?, ?> method) {
    if (method.getSchemaDescriptor() instanceof ProtoMethodDescriptorSupplier supplier) {
      String name = supplier.getMethodDescriptor().getOptions().getExtension(SgmProto.operation);
      return name.isEmpty() ? null : name;
    }
    return null;
  }

  /** The RPC that runs {@code operation}, or null when only {@code Invoke} reaches it. */
  static MethodDescriptor<?, ?> method(String operation) {
    return BY_OPERATION.get(operation);
  }

  /** A new builder of the messages a marshaller reads and writes. */
  static Message.Builder builder(MethodDescriptor.Marshaller<?> marshaller) {
    Object prototype = ((MethodDescriptor.PrototypeMarshaller<?>) marshaller).getMessagePrototype();
    return ((Message) prototype).newBuilderForType();
  }

  /** True when the RPC carries its request and response as JSON text rather than typed. */
  static boolean carriesJson(MethodDescriptor<?, ?> method) {
    return builder(method.getRequestMarshaller()) instanceof OperationRequest.Builder;
  }

  private static List<ServiceDescriptor> services() {
    List<ServiceDescriptor> services = new ArrayList<>();
    for (Descriptors.ServiceDescriptor service : SgmProto.getDescriptor().getServices()) {
      // protoc-gen-grpc-java names each service's class <Service>Grpc, beside the messages.
      String stub = SgmProto.class.getPackageName() + "." + service.getName() + "Grpc";
      try {
        services.add(
            (ServiceDescriptor) Class.forName(stub).getMethod("getServiceDescriptor").invoke(null));
      } catch (ClassNotFoundException
          | NoSuchMethodException
          | IllegalAccessException
          | InvocationTargetException e) {
        throw new IllegalStateException("the generated gRPC class " + stub + " is missing", e);
      }
    }
    return List.copyOf(services);
  }

  private static Map<String, MethodDescriptor<?, ?>> byOperation() {
    Map<String, MethodDescriptor<?, ?>> methods = new LinkedHashMap<>();
    for (ServiceDescriptor service : SERVICES) {
      for (MethodDescriptor<?, ?> method : service.getMethods()) {
        String operation = operation(method);
        if (operation != null && methods.putIfAbsent(operation, method) != null) {
          throw new IllegalStateException("two RPCs run the operation " + operation);
        }
      }
    }
    return Map.copyOf(methods);
  }
}
