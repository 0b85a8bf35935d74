package dev.sgm.transport.grpc;

import io.grpc.MethodDescriptor;
import java.util.Map;

/**
 * Which RPC of which profile service carries which profile operation: one table for the server,
 * which registers the services, and for the client, which calls them.
 */
final class ProfileMethods {
  /** History's operations, by wire name. */
  static final Map<String, MethodDescriptor<OperationRequest, OperationResponse>> HISTORY =
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
  static final Map<String, MethodDescriptor<OperationRequest, OperationResponse>> COLLABORATION =
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
  static final Map<String, MethodDescriptor<OperationRequest, OperationResponse>> CODE =
      Map.of(
          "code.symbols", CodeGrpc.getSymbolsMethod(),
          "code.references_to", CodeGrpc.getReferencesToMethod(),
          "code.diffs_touching", CodeGrpc.getDiffsTouchingMethod());

  private ProfileMethods() {}

  /** The RPC of an operation, or null. */
  static MethodDescriptor<OperationRequest, OperationResponse> of(String operation) {
    for (Map<String, MethodDescriptor<OperationRequest, OperationResponse>> table :
        java.util.List.of(HISTORY, COLLABORATION, CODE)) {
      if (table.containsKey(operation)) {
        return table.get(operation);
      }
    }
    return null;
  }
}
