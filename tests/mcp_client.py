"""A test driver around the MCP Python SDK (`mcp` on PyPI): a client the project did not write.

Usage (the venv that scripts/install-deps makes):
    .venv-mcp/bin/python tests/mcp_client.py SERVER_COMMAND [ARG...]

Starts SERVER_COMMAND through the SDK's stdio client (with this process's whole environment, so
the server reaches the test's accessibility bus and X display), initializes a session, prints
one JSON line {"ready": true, "initialize": ...}, then serves one command per stdin line and
answers each with one JSON line on stdout:

    {"op": "list_tools"}
        -> {"tools": [...], "schema_errors": {"NAME": "why", ...}}
           every inputSchema and outputSchema is checked with jsonschema's Draft 2020-12
           meta-schema
    {"op": "call", "name": NAME, "arguments": {...}}
        -> {"isError": bool, "structuredContent": ..., "text": "...", "ms": float}
           ms: request to response, as this client saw it. The SDK validates a result that
           is not an error against the tool's outputSchema itself (ClientSession.call_tool):
           one that does not conform answers {"rpc_error": "RuntimeError: Invalid structured
           content ..."}
    {"op": "quit"} -> {"ok": true}, then the session closes and the driver exits

A failure of the SDK itself (a JSON-RPC error) answers {"rpc_error": "..."}.
"""

import json
import os
import sys
import time

import anyio
import jsonschema
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


def out(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def dump(model):
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


async def serve(session):
    while True:
        line = await anyio.to_thread.run_sync(sys.stdin.readline)
        if not line:
            return
        cmd = json.loads(line)
        op = cmd.get("op")
        try:
            if op == "list_tools":
                tools = (await session.list_tools()).tools
                errors = {}
                for t in tools:
                    try:
                        jsonschema.Draft202012Validator.check_schema(t.input_schema)
                        if t.output_schema is not None:
                            jsonschema.Draft202012Validator.check_schema(t.output_schema)
                    except jsonschema.SchemaError as e:
                        errors[t.name] = str(e)
                out({"tools": [dump(t) for t in tools], "schema_errors": errors})
            elif op == "call":
                started = time.perf_counter()
                r = await session.call_tool(cmd["name"], cmd.get("arguments") or {})
                ms = (time.perf_counter() - started) * 1000.0
                text = "\n".join(c.text for c in r.content if getattr(c, "type", "") == "text")
                out({
                    "isError": bool(r.is_error),
                    "structuredContent": r.structured_content,
                    "text": text,
                    "ms": ms,
                })
            elif op == "quit":
                out({"ok": True})
                return
            else:
                out({"rpc_error": f"unknown op {op!r}"})
        except Exception as e:  # the SDK raises McpError for JSON-RPC errors
            out({"rpc_error": f"{type(e).__name__}: {e}"})


async def main():
    params = StdioServerParameters(
        command=sys.argv[1], args=sys.argv[2:], env=dict(os.environ)
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            out({"ready": True, "initialize": dump(init)})
            await serve(session)


if __name__ == "__main__":
    anyio.run(main)
