#!/usr/bin/env python3
"""{{PLUGIN_ID}}: a Toolport plugin in Python, made by `toolport plugin init --lang python`.

Its tools are the functions in TOOLS, by the local names manifest.yaml declares. Each gets the
arguments (already checked against its input_schema) and the call's context (task_id,
session_id, workspace_id, surface: bound by Toolport, never by the agent) and answers the text
the agent reads, or a dict {"text", "structured_content"?, "content"?, "is_error"?} where
`content` is a list of MCP content blocks the agent gets after the text (such as
{"type": "image", "data": <base64>, "mimeType": "image/png"}). What it raises reaches the agent
as an error result. toolport_plugin.py speaks the plugin protocol
(docs/plugin-protocol.md in Toolport); stubs/ holds the gRPC code generated from its proto/.
"""
import sys

sys.dont_write_bytecode = True  # the installed package stays as installed: no __pycache__

from toolport_plugin import serve  # noqa: E402


def hello(args, context):
    return "Hello, %s! (task %s)" % (args["name"], context.task_id)


TOOLS = {"hello": hello}

if __name__ == "__main__":
    serve(TOOLS)
