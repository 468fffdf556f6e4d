#!/usr/bin/python3
"""{{PLUGIN_ID}}: a Toolport plugin in Python, made by `toolport plugin init --lang python`.

Tools are the functions in TOOLS, by the names manifest.yaml declares. The rest is the plugin
protocol (docs/plugin-protocol.md in Toolport): the cookie check, a gRPC server on a unix
socket in the private TMPDIR, the handshake line on stdout (flushed), health, Shutdown, log
records on stderr, and exiting once the host is gone. Needs Debian's python3-grpcio and
python3-protobuf; the stubs in stubs/ were generated from Toolport's proto/.
"""
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
from concurrent import futures

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "stubs"))

import grpc  # noqa: E402
from grpc_health.v1 import health_pb2, health_pb2_grpc  # noqa: E402
from plugin import grpc_controller_pb2, grpc_controller_pb2_grpc  # noqa: E402
from toolport.plugin.v1 import plugin_pb2, plugin_pb2_grpc  # noqa: E402


def hello(args, context):
    """`args` were checked against the input_schema; `context` names the task and session."""
    return "Hello, %s! (task %s)" % (args["name"], context.task_id)


TOOLS = {"hello": hello}


def log(level, message, **fields):
    """One JSON line on stderr with pino's numeric level; the host keeps it as a log record."""
    number = {"debug": 20, "info": 30, "warn": 40, "error": 50}[level]
    sys.stderr.write(json.dumps({"level": number, **fields, "msg": message}) + "\n")
    sys.stderr.flush()


class Tools(plugin_pb2_grpc.PluginServicer):
    def InvokeAgentTool(self, request, context):
        tool = TOOLS.get(request.name)
        if tool is None:
            context.abort(grpc.StatusCode.UNIMPLEMENTED, "no tool named %s" % json.dumps(request.name))
        try:
            text = tool(json.loads(request.arguments_json or "{}"), request.context)
        except Exception as error:  # a failure the agent should read: an is_error result, not a gRPC status
            log("error", "tool failed", tool=request.name, invocation_id=request.invocation_id, error=repr(error))
            return plugin_pb2.InvokeAgentToolResponse(text="%s failed: %s" % (request.name, error), is_error=True)
        return plugin_pb2.InvokeAgentToolResponse(text=text)


class Health(health_pb2_grpc.HealthServicer):
    def Check(self, request, context):
        if request.service in ("", "plugin"):
            return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)
        context.abort(grpc.StatusCode.NOT_FOUND, "unknown service")


class Controller(grpc_controller_pb2_grpc.GRPCControllerServicer):
    def __init__(self, stop):
        self._stop = stop

    def Shutdown(self, request, context):
        # Reply first, then stop: the host waits for the exit after the reply.
        threading.Timer(0.05, self._stop.set).start()
        return grpc_controller_pb2.Empty()


def serve():
    if os.environ.get("TOOLPORT_PLUGIN") != "toolport-plugin-v1":
        sys.stderr.write("This is a Toolport plugin: install it with `toolport plugin install`, which starts it.\n")
        sys.exit(1)
    stop = threading.Event()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    plugin_pb2_grpc.add_PluginServicer_to_server(Tools(), server)
    health_pb2_grpc.add_HealthServicer_to_server(Health(), server)
    grpc_controller_pb2_grpc.add_GRPCControllerServicer_to_server(Controller(stop), server)
    # A unix socket, no port to share: in PLUGIN_UNIX_SOCKET_DIR when the host sets it (a
    # sandboxed plugin's private folder, one per start), else in a folder of the private TMPDIR.
    socket_dir = os.environ.get("PLUGIN_UNIX_SOCKET_DIR")
    folder = None if socket_dir else tempfile.mkdtemp(prefix="plugin-")
    socket_path = os.path.join(socket_dir or folder, "plugin-%d" % os.getpid())
    server.add_insecure_port("unix:" + socket_path)
    server.start()
    for name in ("SIGTERM", "SIGINT"):
        signal.signal(getattr(signal, name), lambda *_: stop.set())
    sys.stdout.write("1|1|unix|%s|grpc|\n" % socket_path)
    sys.stdout.flush()
    log("info", "plugin serving", tools=sorted(TOOLS))
    parent = os.getppid()
    while not stop.wait(0.5):
        if os.getppid() != parent:  # re-parented: the host is gone
            break
    server.stop(0.5).wait()  # grpc removes the socket file itself
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    serve()
