"""The Toolport plugin protocol for a Python plugin, from the proto files alone.

A plugin's own file says which tools it has (a dict of functions) and calls `serve(tools)`;
this module does the rest of docs/plugin-protocol.md: the magic-cookie check, a gRPC server on
a unix socket (in PLUGIN_UNIX_SOCKET_DIR when the host sets it, else in the private TMPDIR the
host made for this start), the handshake line on stdout (flushed), health, Shutdown, log records on stderr, and exiting once the host is gone. `Host`
reaches the Host API (configuration, state). It needs Debian's python3-grpcio and
python3-protobuf; the stubs in stubs/ were generated from Toolport's proto/.

`toolport plugin init --lang python` copies this file into each new project: the same code
serves the example and every project made from the template.
"""
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
from concurrent import futures

# The installed package stays as installed: no __pycache__ written next to it.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "stubs"))

try:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    from plugin import grpc_controller_pb2, grpc_controller_pb2_grpc
    from toolport.plugin.v1 import host_pb2, host_pb2_grpc, plugin_pb2, plugin_pb2_grpc
except ImportError as missing:
    # What the operator reads in PLUGIN_START_FAILED: which python3 ran, and what it lacks.
    sys.stderr.write(
        "%s cannot import %s: this plugin needs grpcio and protobuf (Debian: apt-get install "
        "python3-grpcio python3-protobuf) in the first python3 on the backend's PATH.\n" % (sys.executable, missing.name)
    )
    sys.exit(1)

LEVELS = {"debug": 20, "info": 30, "warn": 40, "error": 50}
HOST_DEADLINE_S = 10


def log(level, message, **fields):
    """One JSON line on stderr with pino's numeric level: the host keeps it as its own record."""
    sys.stderr.write(json.dumps({"level": LEVELS[level], **fields, "msg": message}) + "\n")
    sys.stderr.flush()


def require_host():
    """Exits 1, saying why, unless the process was started by a Toolport host."""
    if os.environ.get("TOOLPORT_PLUGIN") != "toolport-plugin-v1":
        sys.stderr.write("This is a Toolport plugin: install it with `toolport plugin install`, which starts it.\n")
        sys.exit(1)
    if "1" not in os.environ.get("PLUGIN_PROTOCOL_VERSIONS", "1").split(","):
        sys.stderr.write("This plugin speaks plugin protocol 1, which the host does not offer.\n")
        sys.exit(1)


class Host:
    """The Host API of this start, reached with its address and token (never logged)."""

    def __init__(self):
        require_host()
        channel = grpc.insecure_channel(os.environ["TOOLPORT_HOST_ADDR"], options=[("grpc.enable_retries", 0)])
        self._stub = host_pb2_grpc.HostStub(channel)
        self._metadata = (("authorization", "Bearer " + os.environ["TOOLPORT_HOST_TOKEN"]),)

    def config(self):
        """The configuration this process was started with, secrets in clear."""
        answer = self._stub.GetConfig(host_pb2.GetConfigRequest(), metadata=self._metadata, timeout=HOST_DEADLINE_S)
        return json.loads(answer.values_json)

    def get_state(self, key):
        """The value stored under `key`, or None (needs `capabilities: {state: true}`)."""
        answer = self._stub.GetState(host_pb2.GetStateRequest(key=key), metadata=self._metadata, timeout=HOST_DEADLINE_S)
        return json.loads(answer.value_json) if answer.found else None

    def set_state(self, key, value):
        request = host_pb2.SetStateRequest(key=key, value_json=json.dumps(value))
        self._stub.SetState(request, metadata=self._metadata, timeout=HOST_DEADLINE_S)


class _Tools(plugin_pb2_grpc.PluginServicer):
    """Calls the tool a request names. A tool answers text, or a dict with `text` and
    optionally `structured_content` (a dict), `content` (a list of MCP content blocks as
    dicts, such as {"type": "image", "data": <base64>, "mimeType": "image/png"}, which the
    agent gets after the text) and `is_error`; what it raises becomes an `is_error` result the
    agent reads, since it is the tool that failed, not the plugin."""

    def __init__(self, tools):
        self._tools = tools

    def InvokeAgentTool(self, request, context):
        tool = self._tools.get(request.name)
        if tool is None:
            context.abort(grpc.StatusCode.UNIMPLEMENTED, "this plugin has no tool named %s" % json.dumps(request.name))
        try:
            answer = tool(json.loads(request.arguments_json or "{}"), request.context)
        except Exception as error:
            log("error", "tool failed", tool=request.name, invocation_id=request.invocation_id, error=repr(error))
            return plugin_pb2.InvokeAgentToolResponse(text="%s failed: %s" % (request.name, error), is_error=True)
        if isinstance(answer, str):
            return plugin_pb2.InvokeAgentToolResponse(text=answer)
        structured = answer.get("structured_content")
        content = answer.get("content")
        return plugin_pb2.InvokeAgentToolResponse(
            text=answer["text"],
            structured_content_json="" if structured is None else json.dumps(structured),
            content_json=json.dumps(content, separators=(",", ":")) if content else "",
            is_error=bool(answer.get("is_error", False)),
        )


class _Health(health_pb2_grpc.HealthServicer):
    def Check(self, request, context):
        if request.service in ("", "plugin"):
            return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)
        context.abort(grpc.StatusCode.NOT_FOUND, "unknown service")


class _Controller(grpc_controller_pb2_grpc.GRPCControllerServicer):
    def __init__(self, stop):
        self._stop = stop

    def Shutdown(self, request, context):
        # Answer first, then go: the host waits for the exit after the reply.
        threading.Timer(0.05, self._stop.set).start()
        return grpc_controller_pb2.Empty()


def serve(tools):
    """Serves `tools` ({local name: function(args, context)}) until the host stops the plugin."""
    require_host()
    stop = threading.Event()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    plugin_pb2_grpc.add_PluginServicer_to_server(_Tools(tools), server)
    health_pb2_grpc.add_HealthServicer_to_server(_Health(), server)
    grpc_controller_pb2_grpc.add_GRPCControllerServicer_to_server(_Controller(stop), server)
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
    log("info", "plugin serving", socket=socket_path, tools=sorted(tools))
    parent = os.getppid()
    # Exit when the host asks, signals, or is gone (this process was re-parented).
    while not stop.wait(0.5):
        if os.getppid() != parent:
            break
    server.stop(0.5).wait()  # grpc removes the socket file itself
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
    log("info", "plugin stopped")
