"""A Python gRPC client presenting a bearer token in the `authorization` metadata.

Usage: auth_client_test.py GENERATED_DIR HOST:PORT TOKEN
Without the token a call fails UNAUTHENTICATED with the SGM ErrorInfo; with it, whoami names the
token's principal. Exits 0 when every check passes.
"""
import json
import sys

sys.path.insert(0, sys.argv[1])

import grpc  # noqa: E402
from google.rpc import error_details_pb2, status_pb2  # noqa: E402
from sgm.v1 import sgm_pb2  # noqa: E402

channel = grpc.insecure_channel(sys.argv[2])
token = sys.argv[3]
invoke = channel.unary_unary(
    "/sgm.v1.Memory/Invoke",
    request_serializer=lambda m: m.SerializeToString(),
    response_deserializer=sgm_pb2.OperationResponse.FromString,
)
failures = 0


def check(name, condition, detail=""):
    global failures
    print(("PASS " if condition else "FAIL ") + name + ("" if condition else ": " + str(detail)))
    failures += 0 if condition else 1


whoami = sgm_pb2.InvokeRequest(operation="whoami", json="{}")
try:
    invoke(whoami, timeout=10)
    check("without a token the call is refused", False, "it succeeded")
except grpc.RpcError as e:
    check("without a token the call is UNAUTHENTICATED", e.code() == grpc.StatusCode.UNAUTHENTICATED, e.code())
    reason = None
    for key, value in e.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                    info = error_details_pb2.ErrorInfo()
                    detail.Unpack(info)
                    reason = info.reason
    check("the refusal carries the SGM ErrorInfo", reason == "unauthenticated", reason)

answer = invoke(whoami, timeout=10, metadata=(("authorization", "Bearer " + token),))
check("with the token whoami names its principal", json.loads(answer.json)["principal"] == "py", answer.json)
print("%d failed" % failures)
sys.exit(1 if failures else 0)
