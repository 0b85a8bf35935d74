package dev.sgm.transport.grpc;

import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import java.util.List;
import java.util.Map;

/**
 * Which RPC of which profile service carries which profile operation: one table for the server,
 * which registers the services, and for the client, which calls them.
 */
final class ProfileMethods {
  /** History's operations, by wire name. */
  private static final Map<String, MethodDescriptor<OperationRequest, OperationResponse>> HISTORY =
      Map.of(
          "history.versions", HistoryGrpc.getVersionsMethod(),
          "history.read", HistoryGrpc.getReadVersionMethod(),
          "history.restore", HistoryGrpc.getRestoreMethod(),
          "history.undelete", HistoryGrpc.getUndeleteMethod(),
          "snapshots.create", HistoryGrpc.getCreateSnapshotMethod(),
          "snapshots.list", HistoryGrpc.getListSnapshotsMethod(),
          "snapshots.retrieve", HistoryGrpc.getRetrieveSnapshotMethod(),
          "snapshots.restore", HistoryGrpc.getRestoreSnapshotMethod());

  /** Collaboration's operations, by wire name. */
  private static final Map<String, MethodDescriptor<OperationRequest, OperationResponse>>
      COLLABORATION =
          Map.of(
              "tasks.claim", CollaborationGrpc.getClaimTaskMethod(),
              "tasks.transition", CollaborationGrpc.getTransitionTaskMethod(),
              "tasks.ready", CollaborationGrpc.getReadyTasksMethod(),
              "rules.active", CollaborationGrpc.getActiveRulesMethod(),
              "status.current", CollaborationGrpc.getCurrentStatusMethod(),
              "handoffs.accept", CollaborationGrpc.getAcceptHandoffMethod(),
              "handoffs.complete", CollaborationGrpc.getCompleteHandoffMethod(),
              "handoffs.resume", CollaborationGrpc.getResumeHandoffMethod());

  /** Code intelligence's operations, by wire name. */
  private static final Map<String, MethodDescriptor<OperationRequest, OperationResponse>> CODE =
      Map.of(
          "code.symbols", CodeGrpc.getSymbolsMethod(),
          "code.references_to", CodeGrpc.getReferencesToMethod(),
          "code.diffs_touching", CodeGrpc.getDiffsTouchingMethod());

  /** A profile's gRPC service and the RPC of each of its operations. */
  record ProfileService(
      ServiceDescriptor descriptor,
      Map<String, MethodDescriptor<OperationRequest, OperationResponse>> methods) {}

  /** Every profile service, for the server to register those whose profile is active. */
  static final List<ProfileService> SERVICES =
      List.of(
          new ProfileService(HistoryGrpc.getServiceDescriptor(), HISTORY),
          new ProfileService(CodeGrpc.getServiceDescriptor(), CODE),
          new ProfileService(CollaborationGrpc.getServiceDescriptor(), COLLABORATION));

  private ProfileMethods() {}

  /** The RPC of an operation, or null. */
  static MethodDescriptor<OperationRequest, OperationResponse> of(String operation) {
    for (ProfileService service : SERVICES) {
      MethodDescriptor<OperationRequest, OperationResponse> method =
          service.methods().get(operation);
      if (method != null) {
        return method;
      }
    }
    return null;
  }
}
