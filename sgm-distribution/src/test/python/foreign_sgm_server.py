"""A small SGM server written apart from sgm-java, to prove `sgm tck` on an implementation of
the seeds alone.

It implements the seeds' core (store, retrieve, read, delete; identity; scope isolation;
discovery) over the HTTP binding of the contract (POST /v1/{op}, GET /v1/discovery), in memory,
with the Python standard library only. It advertises no profile and no `retrieval`, and it does
not try to follow the contract's further rules.

    python3 foreign_sgm_server.py [--port N] [--bug NAME]

prints "listening on http://127.0.0.1:PORT" once it accepts requests (port 0 picks a free one).
--bug plants one defect, each breaking one seed case:

    leak-narrower   a retrieve also returns the records of narrower scopes, unasked (C6)
    coerce-types    a record of an unknown type is stored as a note (C4)
    error-on-empty  a text search that matches nothing answers not_found (C10)
    drop-session    provenance.session is not kept (C3)
"""

import argparse
import decimal
import json
import threading
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

KNOWN_TYPES = {"fact", "note", "decision", "rule", "status", "task", "handoff", "annotation"}
BUGS = {"leak-narrower", "coerce-types", "error-on-empty", "drop-session"}
SCOPE_MODES = {"exact", "descendants", "ancestors", "lineage"}
STATUS = {"invalid_record": 400, "invalid_request": 400, "not_found": 404, "internal": 500}


class SgmError(Exception):
    def __init__(self, code, message, field=None):
        super().__init__(message)
        self.code = code
        self.field = field


def parse(body):
    # Decimal keeps a number as written (1.0 stays 1.0), which the seeds' C4 checks byte for byte.
    return json.loads(body, parse_float=decimal.Decimal)


def dump(value):
    """JSON text that writes numbers back as they were read; json.dumps cannot write Decimal."""
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k) + ":" + dump(v) for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(dump(v) for v in value) + "]"
    if isinstance(value, decimal.Decimal):
        return str(value)
    return json.dumps(value)


def now():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def key(scope):
    return tuple(sorted(scope.items()))


def check_scope(scope, code, field="scope"):
    if not isinstance(scope, dict) or not scope:
        raise SgmError(code, field + ": must be an object of at least one key", field)
    for k, v in scope.items():
        if not isinstance(v, str) or not v:
            raise SgmError(code, field + "." + k + ": must be a non-empty string", field)


class Memory:
    """The records, by (scope, id); one lock, since the server answers on many threads."""

    def __init__(self, bug):
        self.bug = bug
        self.records = {}
        self.lock = threading.Lock()

    def discover(self, request):
        return {
            "protocol_version": "0.1.0",
            "implementation": "foreign-sgm-python",
            "implementation_version": "0.0.1",
            "capabilities": ["core", "http"],
            "scope_model": {"default_mode": "exact", "modes": sorted(SCOPE_MODES)},
        }

    def store(self, request):
        record = request.get("record")
        if not isinstance(record, dict):
            raise SgmError("invalid_record", "record: is required", "record")
        for field in ("id", "type"):
            if not isinstance(record.get(field), str) or not record[field]:
                raise SgmError("invalid_record", field + ": is required", field)
        if "scope" not in record:
            raise SgmError("invalid_record", "scope: is required", "scope")
        check_scope(record["scope"], "invalid_record")
        provenance = record.get("provenance")
        if not isinstance(provenance, dict) or not provenance.get("agent"):
            raise SgmError("invalid_record", "provenance.agent: is required", "provenance.agent")
        if self.bug == "coerce-types" and record["type"] not in KNOWN_TYPES:
            record["type"] = "note"
        if self.bug == "drop-session":
            provenance.pop("session", None)
        with self.lock:
            identity = (key(record["scope"]), record["id"])
            old = self.records.get(identity)
            stamp = now()
            record.setdefault("created_at", old["created_at"] if old else stamp)
            record.setdefault("schema_version", "0.1.0")
            provenance.setdefault("created_at", record["created_at"])
            provenance.setdefault("origin", "http")
            if old is not None:
                unchanged = {k: v for k, v in old.items() if k not in ("version", "updated_at")}
                if unchanged == record:
                    return {"record": old, "created": False, "changed": False}
            record["version"] = old["version"] + 1 if old else 1
            record["updated_at"] = stamp
            self.records[identity] = record
            return {"record": record, "created": old is None, "changed": True}

    def read(self, request):
        check_scope(request.get("scope"), "invalid_request")
        with self.lock:
            record = self.records.get((key(request["scope"]), request.get("id")))
        if record is None:
            raise SgmError("not_found", "no record " + str(request.get("id")) + " in that scope")
        if request.get("resolve") is True and "reference" in record:
            # The memory model's seed: a reference it cannot resolve is said so, not left empty.
            return {"record": record, "content": None, "unresolved": "this server keeps no content"}
        return {"record": record}

    def delete(self, request):
        check_scope(request.get("scope"), "invalid_request")
        with self.lock:
            if self.records.pop((key(request["scope"]), request.get("id")), None) is None:
                raise SgmError("not_found", "no record " + str(request.get("id")) + " in that scope")
        return {"deleted": True, "soft": False}

    def retrieve(self, request):
        scope = request.get("scope")
        check_scope(scope, "invalid_request")
        mode = request.get("scope_mode", "exact")
        if mode not in SCOPE_MODES:
            raise SgmError("invalid_request", "scope_mode: unknown mode", "scope_mode")
        if self.bug == "leak-narrower" and mode == "exact":
            mode = "descendants"
        asked = set(scope.items())
        words = str(request.get("text", "")).lower().split()
        with self.lock:
            candidates = list(self.records.values())
        found = []
        for record in candidates:
            pairs = set(record["scope"].items())
            in_scope = {
                "exact": pairs == asked,
                "descendants": asked <= pairs,
                "ancestors": pairs <= asked,
                "lineage": asked <= pairs or pairs <= asked,
            }[mode]
            if not in_scope:
                continue
            if "ids" in request and record["id"] not in request["ids"]:
                continue
            if "types" in request and record["type"] not in request["types"]:
                continue
            if "tags" in request and not set(request["tags"]) <= set(record.get("tags", [])):
                continue
            if words:
                text = " ".join(
                    [str(record.get("title", "")), str(record.get("content", ""))]
                    + [str(t) for t in record.get("tags", [])]
                ).lower()
                if not any(word in text.split() for word in words):
                    continue
            found.append(record)
        if not found and words and self.bug == "error-on-empty":
            raise SgmError("not_found", "nothing matches")
        found.sort(key=lambda r: r["updated_at"], reverse=True)
        limit = request.get("limit", 50)
        return {"records": found[:limit], "total": len(found)}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    memory = None

    def do_GET(self):
        if self.path in ("/v1/discovery", "/.well-known/sgm"):
            self.answer(200, self.memory.discover({}))
        else:
            self.fail(SgmError("not_found", "no route " + self.path))

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        body = self.rfile.read(length)
        op = self.path[len("/v1/"):] if self.path.startswith("/v1/") else ""
        handler = getattr(self.memory, op, None) if op in (
            "discover", "store", "read", "retrieve", "delete") else None
        if handler is None:
            return self.fail(SgmError("not_found", "no operation " + self.path))
        try:
            request = parse(body or b"{}")
            if not isinstance(request, dict):
                raise SgmError("invalid_request", "the request must be a JSON object")
            self.answer(200, handler(request))
        except ValueError as e:
            self.fail(SgmError("invalid_request", "the body is not JSON: " + str(e)))
        except SgmError as e:
            self.fail(e)
        except Exception as e:  # a request of a shape this small server does not expect
            self.fail(SgmError("internal", type(e).__name__ + ": " + str(e)))

    def fail(self, error):
        body = {"error": {"code": error.code, "message": str(error)}}
        if error.field:
            body["error"]["details"] = [{"field": error.field, "reason": str(error)}]
        self.answer(STATUS.get(error.code, 500), body)

    def answer(self, status, body):
        data = dump(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass  # quiet: the kit sends thousands of requests


def main():
    parser = argparse.ArgumentParser(description="A foreign SGM server for the conformance kit.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--bug", choices=sorted(BUGS))
    args = parser.parse_args()
    Handler.memory = Memory(args.bug)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print("listening on http://127.0.0.1:%d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
