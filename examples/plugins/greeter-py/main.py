#!/usr/bin/python3
"""A Toolport plugin in Python: go-plugin's gRPC protocol from the proto files alone.

It serves `toolport.plugin.v1.Plugin` (one tool, `greet`), `grpc.health.v1.Health` and
`plugin.GRPCController` on a unix socket (in PLUGIN_UNIX_SOCKET_DIR when the host sets it,
else in its TMPDIR), prints the handshake line, and calls back its host's
`toolport.plugin.v1.Host` service at TOOLPORT_HOST_ADDR with the bearer TOOLPORT_HOST_TOKEN:
GetConfig for the greeting the operator configured, GetState/SetState to count greetings per
task. Needs only python3-grpcio and python3-protobuf; the stubs in
stubs/ were generated from proto/ (scripts/python-stubs.js).
"""
import hashlib
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
from concurrent import futures

# The installed package stays as installed: no __pycache__ written next to the stubs.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "stubs"))

import grpc  # noqa: E402
from grpc_health.v1 import health_pb2, health_pb2_grpc  # noqa: E402
from plugin import grpc_controller_pb2, grpc_controller_pb2_grpc  # noqa: E402
from toolport.plugin.v1 import host_pb2, host_pb2_grpc, plugin_pb2, plugin_pb2_grpc  # noqa: E402

LEVELS = {"debug": 20, "info": 30, "warn": 40, "error": 50}
HOST_DEADLINE_S = 10


def log(level, message, **fields):
    """One JSON line on stderr, with pino's numeric level: the host keeps it as its own record."""
    sys.stderr.write(json.dumps({"level": LEVELS[level], **fields, "msg": message}) + "\n")
    sys.stderr.flush()


class Host:
    """The Host API, reached with this start's address and token (never logged)."""

    def __init__(self, address, token):
        self._stub = host_pb2_grpc.HostStub(grpc.insecure_channel(address, options=[("grpc.enable_retries", 0)]))
        self._metadata = (("authorization", "Bearer " + token),)

    def config(self):
        answer = self._stub.GetConfig(host_pb2.GetConfigRequest(), metadata=self._metadata, timeout=HOST_DEADLINE_S)
        return json.loads(answer.values_json)

    def get_state(self, key):
        answer = self._stub.GetState(host_pb2.GetStateRequest(key=key), metadata=self._metadata, timeout=HOST_DEADLINE_S)
        return json.loads(answer.value_json) if answer.found else None

    def set_state(self, key, value):
        request = host_pb2.SetStateRequest(key=key, value_json=json.dumps(value))
        self._stub.SetState(request, metadata=self._metadata, timeout=HOST_DEADLINE_S)


class Greeter(plugin_pb2_grpc.PluginServicer):
    def __init__(self, host, greeting):
        self._host = host
        self._greeting = greeting
        self._lock = threading.Lock()

    def InvokeAgentTool(self, request, context):
        if request.name != "greet":
            context.abort(grpc.StatusCode.UNIMPLEMENTED, "this plugin has no tool named %s" % json.dumps(request.name))
        args = json.loads(request.arguments_json or "{}")
        task = request.context
        key = "greetings/" + hashlib.sha256((task.workspace_id + "\0" + task.task_id).encode()).hexdigest()[:40]
        try:
            # One read-modify-write at a time: concurrent calls never lose a count.
            with self._lock:
                count = (self._host.get_state(key) or 0) + 1
                self._host.set_state(key, count)
        except grpc.RpcError as error:
            return plugin_pb2.InvokeAgentToolResponse(text="the host refused: %s" % error.code().name, is_error=True)
        text = "%s, %s! (greeting #%d on this task)" % (self._greeting, args.get("name", "you"), count)
        structured = {"greeting": text, "count": count}
        return plugin_pb2.InvokeAgentToolResponse(text=text, structured_content_json=json.dumps(structured))


class Health(health_pb2_grpc.HealthServicer):
    def Check(self, request, context):
        if request.service in ("", "plugin"):
            return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)
        context.abort(grpc.StatusCode.NOT_FOUND, "unknown service")


class Controller(grpc_controller_pb2_grpc.GRPCControllerServicer):
    def __init__(self, stop):
        self._stop = stop

    def Shutdown(self, request, context):
        # Answer first, then go: the host waits for the exit after the reply.
        threading.Timer(0.05, self._stop.set).start()
        return grpc_controller_pb2.Empty()


def main():
    if os.environ.get("TOOLPORT_PLUGIN") != "toolport-plugin-v1":
        sys.stderr.write("This is a Toolport plugin: install it with `toolport plugin install`, which starts it.\n")
        sys.exit(1)
    if "1" not in os.environ.get("PLUGIN_PROTOCOL_VERSIONS", "1").split(","):
        sys.stderr.write("This plugin speaks plugin protocol 1, which the host does not offer.\n")
        sys.exit(1)
    host = Host(os.environ["TOOLPORT_HOST_ADDR"], os.environ["TOOLPORT_HOST_TOKEN"])
    greeting = host.config().get("greeting", "Hello")

    stop = threading.Event()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    plugin_pb2_grpc.add_PluginServicer_to_server(Greeter(host, greeting), server)
    health_pb2_grpc.add_HealthServicer_to_server(Health(), server)
    grpc_controller_pb2_grpc.add_GRPCControllerServicer_to_server(Controller(stop), server)
    # A unix socket, no port to share: in PLUGIN_UNIX_SOCKET_DIR when the host sets it (a
    # sandboxed plugin's private folder, one per start), else in a folder of the private TMPDIR.
    socket_dir = os.environ.get("PLUGIN_UNIX_SOCKET_DIR")
    folder = None if socket_dir else tempfile.mkdtemp(prefix="greeter-")
    socket_path = os.path.join(socket_dir or folder, "plugin-%d" % os.getpid())
    server.add_insecure_port("unix:" + socket_path)
    server.start()
    for name in ("SIGTERM", "SIGINT"):
        signal.signal(getattr(signal, name), lambda *_: stop.set())
    sys.stdout.write("1|1|unix|%s|grpc|\n" % socket_path)
    sys.stdout.flush()
    log("info", "plugin serving", socket=socket_path)
    parent = os.getppid()
    # Exit when the host asks, signals, or is gone (re-parented).
    while not stop.wait(0.5):
        if os.getppid() != parent:
            break
    server.stop(0.5).wait()  # grpc removes the socket file itself
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
    log("info", "plugin stopped")


if __name__ == "__main__":
    main()
