"""A client of the SGM gRPC API written in Python from the published protos, run against a live server.

Usage: client_test.py GENERATED_DIR HOST:PORT [OPERATION REQUEST_JSON EXPECTED_TEXT]
With an operation, also runs it through Memory.Invoke and checks that the response contains the text.
Exits 0 when every check passes; prints one line per check and a summary.
"""
import json
import sys
import uuid

sys.path.insert(0, sys.argv[1])

import grpc  # noqa: E402
from google.rpc import error_details_pb2, status_pb2  # noqa: E402
from sgm.v1 import sgm_pb2  # noqa: E402

channel = grpc.insecure_channel(sys.argv[2])
project = "py-" + uuid.uuid4().hex[:8]
results = []


def rpc(method, request, response_type):
    call = channel.unary_unary(
        "/sgm.v1.Memory/" + method,
        request_serializer=lambda m: m.SerializeToString(),
        response_deserializer=response_type.FromString,
    )
    return call(request, timeout=10)


def scope(**pairs):
    return [sgm_pb2.ScopeEntry(key=k, value=v) for k, v in pairs.items()]


def record(id, scope_entries, **fields):
    return sgm_pb2.Record(id=id, type="note", scope=scope_entries,
                          provenance=sgm_pb2.Provenance(agent="python"), **fields)


def check(name, condition, detail=""):
    results.append(bool(condition))
    print(("PASS " if condition else "FAIL ") + name + ("" if condition else ": " + str(detail)))


discovery = rpc("Discover", sgm_pb2.DiscoverRequest(), sgm_pb2.DiscoverResponse)
check("discover lists core and grpc", "core" in discovery.capabilities and "grpc" in discovery.capabilities,
      list(discovery.capabilities))

metadata = '{"one":1.0,"big":12345678901234567890,"nested":{"z":1,"a":[true,null]}}'
stored = rpc("Store", sgm_pb2.StoreRequest(record=record("r1", scope(project=project), content="from python",
                                                           metadata_json=metadata)), sgm_pb2.StoreResponse)
check("store creates version 1", stored.created and stored.record.version == 1, stored)
check("store sets origin grpc", stored.record.provenance.origin == "grpc", stored.record.provenance)

read = rpc("Read", sgm_pb2.ReadRequest(scope=scope(project=project), id="r1"), sgm_pb2.ReadResponse)
check("read returns the content", read.record.content == "from python", read.record)
check("metadata round-trips byte for byte", read.record.metadata_json == metadata, read.record.metadata_json)

rpc("Store", sgm_pb2.StoreRequest(record=record("r2", scope(project=project, session="s1"))), sgm_pb2.StoreResponse)
exact = rpc("Retrieve", sgm_pb2.RetrieveRequest(scope=scope(project=project)), sgm_pb2.RetrieveResponse)
check("retrieve exact sees only the project's record", [r.id for r in exact.records] == ["r1"], exact)
descendants = rpc("Retrieve", sgm_pb2.RetrieveRequest(scope=scope(project=project), scope_mode="descendants"),
                  sgm_pb2.RetrieveResponse)
check("retrieve descendants sees the session's too", sorted(r.id for r in descendants.records) == ["r1", "r2"]
      and descendants.total == 2, descendants)
sibling = rpc("Retrieve", sgm_pb2.RetrieveRequest(scope=scope(project=project + "-other"), scope_mode="lineage"),
              sgm_pb2.RetrieveResponse)
check("a sibling scope sees nothing", sibling.total == 0 and len(sibling.records) == 0, sibling)

deleted = rpc("Delete", sgm_pb2.DeleteRequest(scope=scope(project=project), id="r1"), sgm_pb2.DeleteResponse)
check("delete", deleted.deleted, deleted)
try:
    rpc("Read", sgm_pb2.ReadRequest(scope=scope(project=project), id="r1"), sgm_pb2.ReadResponse)
    check("a deleted record is not found", False, "read succeeded")
except grpc.RpcError as e:
    check("a deleted record is not found", e.code() == grpc.StatusCode.NOT_FOUND, e.code())

try:
    rpc("Store", sgm_pb2.StoreRequest(record=sgm_pb2.Record(id="bad", type="note",
                                                             provenance=sgm_pb2.Provenance(agent="python"))),
        sgm_pb2.StoreResponse)
    check("an invalid record is refused", False, "store succeeded")
except grpc.RpcError as e:
    details = dict(e.trailing_metadata() or ()).get("grpc-status-details-bin")
    reason, domain, fields = None, None, []
    if details:
        status = status_pb2.Status.FromString(details)
        for any_detail in status.details:
            if any_detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                any_detail.Unpack(info)
                reason, domain = info.reason, info.domain
            elif any_detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                any_detail.Unpack(bad)
                fields = [v.field for v in bad.field_violations]
    check("an invalid record is INVALID_ARGUMENT with ErrorInfo invalid_record naming scope",
          e.code() == grpc.StatusCode.INVALID_ARGUMENT and reason == "invalid_record" and domain == "sgm"
          and "scope" in fields, (e.code(), reason, domain, fields))

def invoke(operation, request):
    response = rpc("Invoke", sgm_pb2.InvokeRequest(operation=operation, json=json.dumps(request)),
                   sgm_pb2.OperationResponse)
    return json.loads(response.json)


found = invoke("retrieve", {"scope": {"project": project}, "scope_mode": "descendants"})
check("Invoke runs an operation by its name", found.get("total") == 1, found)
try:
    invoke("no.such_operation", {})
    check("Invoke of an operation not offered is UNIMPLEMENTED", False, "it succeeded")
except grpc.RpcError as e:
    check("Invoke of an operation not offered is UNIMPLEMENTED", e.code() == grpc.StatusCode.UNIMPLEMENTED, e.code())

offered = [op["name"] for op in json.loads(discovery.operations_json or "[]")]
check("discovery describes the operations", "retrieve" in offered and "store" in offered, offered)
if len(sys.argv) > 5:
    operation, request, expected = sys.argv[3], json.loads(sys.argv[4]), sys.argv[5]
    check(operation + " is offered", operation in offered, offered)
    answer = invoke(operation, request)
    check(operation + " answers through Invoke", expected in json.dumps(answer), answer)

watch = channel.unary_stream(
    "/sgm.v1.Memory/Watch",
    request_serializer=lambda m: m.SerializeToString(),
    response_deserializer=sgm_pb2.WatchEvent.FromString,
)


def events_of(stream, count):
    """The next `count` change events of a watch, skipping its start and heartbeats."""
    events = []
    for message in stream:
        if message.kind:
            events.append(message)
            if len(events) == count:
                break
    return events


watched = project + "-watch"
stream = watch(sgm_pb2.WatchRequest(scope=scope(project=watched)), timeout=20)
start = next(stream)
check("Watch starts with the cursor of the present", start.cursor and not start.kind, start)
for name in ("w1", "w2"):
    rpc("Store", sgm_pb2.StoreRequest(record=record(name, scope(project=watched))), sgm_pb2.StoreResponse)
rpc("Store", sgm_pb2.StoreRequest(record=record("elsewhere", scope(project=project + "-other"))),
    sgm_pb2.StoreResponse)
seen = events_of(stream, 2)
stream.cancel()
check("Watch streams the stores of its scope as they commit, in order",
      [(e.kind, e.id) for e in seen] == [("stored", "w1"), ("stored", "w2")]
      and seen[0].scope[0].value == watched and seen[0].agent == "python", seen)
resumed = watch(sgm_pb2.WatchRequest(scope=scope(project=watched), since=seen[0].cursor), timeout=20)
again = events_of(resumed, 1)
resumed.cancel()
check("Watch resumed after an event's cursor starts right after it", [e.id for e in again] == ["w2"], again)
try:
    list(watch(sgm_pb2.WatchRequest(scope=scope(project=watched), since="tampered"), timeout=10))
    check("Watch with a tampered cursor is INVALID_ARGUMENT", False, "it streamed")
except grpc.RpcError as e:
    check("Watch with a tampered cursor is INVALID_ARGUMENT", e.code() == grpc.StatusCode.INVALID_ARGUMENT, e.code())

passed = sum(results)
print(json.dumps({"client": "python", "grpcio": grpc.__version__}))
print(f"{passed} passed, {len(results) - passed} failed")
sys.exit(0 if passed == len(results) else 1)
