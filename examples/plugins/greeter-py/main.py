#!/usr/bin/python3
"""A Toolport plugin in Python: go-plugin's gRPC protocol from the proto files alone.

One tool, `greet`. At start it reads the greeting the operator configured through the Host
API's GetConfig; each call counts the task's greetings in its Host state (GetState/SetState).
toolport_plugin.py speaks the protocol: the cookie check, `toolport.plugin.v1.Plugin`,
`grpc.health.v1.Health` and `plugin.GRPCController` on a unix socket in its TMPDIR, the
handshake line, and the Host API at TOOLPORT_HOST_ADDR with the bearer TOOLPORT_HOST_TOKEN.
Needs only python3-grpcio and python3-protobuf; the stubs in stubs/ were generated from proto/
(scripts/python-stubs.js).
"""
import sys

sys.dont_write_bytecode = True  # before the first import of this package's own modules

import hashlib  # noqa: E402
import threading  # noqa: E402

import grpc  # noqa: E402
from toolport_plugin import Host, require_host, serve  # noqa: E402


class Greeter:
    def __init__(self, host, greeting):
        self._host = host
        self._greeting = greeting
        self._lock = threading.Lock()

    def greet(self, args, context):
        key = "greetings/" + hashlib.sha256((context.workspace_id + "\0" + context.task_id).encode()).hexdigest()[:40]
        try:
            # One read-modify-write at a time: concurrent calls never lose a count.
            with self._lock:
                count = (self._host.get_state(key) or 0) + 1
                self._host.set_state(key, count)
        except grpc.RpcError as error:
            return {"text": "the host refused: %s" % error.code().name, "is_error": True}
        text = "%s, %s! (greeting #%d on this task)" % (self._greeting, args.get("name", "you"), count)
        return {"text": text, "structured_content": {"greeting": text, "count": count}}


if __name__ == "__main__":
    require_host()
    host = Host()
    greeter = Greeter(host, host.config().get("greeting", "Hello"))
    serve({"greet": greeter.greet})
