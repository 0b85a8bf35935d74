/**
 * SGM over gRPC: the {@code sgm.v1} services (Memory, and History when that profile is active),
 * health and reflection, on Netty; and a Java client of the same services.
 */
module dev.sgm.transport.grpc {
  requires transitive dev.sgm.api;
  requires transitive io.grpc;
  requires transitive com.google.protobuf;
  requires io.grpc.stub;
  requires io.grpc.protobuf;
  requires io.grpc.services;
  requires io.grpc.netty.shaded;
  requires com.google.common;
  requires proto.google.common.protos;

  exports dev.sgm.transport.grpc;

  provides dev.sgm.api.spi.TransportProvider with
      dev.sgm.transport.grpc.GrpcTransportProvider;
  provides dev.sgm.api.spi.ClientProvider with
      dev.sgm.transport.grpc.GrpcClientProvider;
}
