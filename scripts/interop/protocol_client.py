"""A Tandem protocol v1 participant written against a third-party WebSocket client (`websockets`).

Usage: protocol_client.py URL TOKEN [CA_FILE]. A wss:// URL is verified (stdlib `ssl`) against CA_FILE. Speaks hello → welcome, patch → ack, the RFC 6902 ops with a
`base`, ping → pong, an unknown type → error (connection stays), then closes with 1000. Prints "OK <check>" per passed check and
exits non-zero with a traceback on the first failure.
"""
import asyncio
import json
import ssl
import sys

from websockets.asyncio.client import connect


async def receive(ws):
    message = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
    assert isinstance(message, dict) and "type" in message, message
    return message


async def main(url, token, ca_file=None):
    context = ssl.create_default_context(cafile=ca_file) if ca_file else None
    async with connect(url, subprotocols=["tandem.v1"], compression=None, ping_interval=None, ssl=context) as ws:
        assert ws.subprotocol == "tandem.v1", ws.subprotocol
        await ws.send(json.dumps({"type": "hello", "token": token, "client": "py-1", "presence": {"name": "Py"}}))
        welcome = await receive(ws)
        assert welcome["type"] == "welcome", welcome
        assert welcome["you"] == {"user": "python", "client": "py-1", "role": "guest"}, welcome["you"]
        assert welcome["state"] == {} and welcome["rev"] == 0 and welcome["lastSeq"] == 0, welcome
        assert welcome["limits"]["maxOps"] == 100 and welcome["heartbeat"]["interval"] == 10000, welcome
        print("OK welcome", flush=True)

        ops = [{"op": "set", "path": "/tabIndex", "value": 2}, {"op": "set", "path": "/marks/price_sheet_shown", "value": True}]
        await ws.send(json.dumps({"type": "patch", "seq": 1, "ops": ops}))
        ack = await receive(ws)
        assert ack == {"type": "ack", "seq": 1, "rev": 1, "duplicate": False}, ack
        print("OK ack", flush=True)

        await ws.send(json.dumps({"type": "patch", "seq": 1, "ops": ops}))
        duplicate = await receive(ws)
        assert duplicate == {"type": "ack", "seq": 1, "rev": 1, "duplicate": True}, duplicate
        print("OK duplicate", flush=True)

        await ws.send(json.dumps({"type": "patch", "seq": 2, "ops": [{"op": "set", "path": "/tabIndex/deeper", "value": 1}]}))
        reject = await receive(ws)
        assert reject["type"] == "reject" and reject["seq"] == 2 and reject["code"] == "invalid_path", reject
        print("OK reject", flush=True)

        # The RFC 6902 ops, on the rev they were made on (`base`), and a failed `test` refusing a patch whole.
        await ws.send(json.dumps({"type": "patch", "seq": 3, "base": 1, "ops": [{"op": "set", "path": "/cart", "value": ["a", "b", "c"]}]}))
        assert await receive(ws) == {"type": "ack", "seq": 3, "rev": 2, "duplicate": False}
        ops = [{"op": "add", "path": "/cart/-", "value": "d"}, {"op": "move", "from": "/cart/0", "path": "/cart/-"},
               {"op": "copy", "from": "/cart/1", "path": "/saved"}, {"op": "test", "path": "/saved", "value": "c"},
               {"op": "replace", "path": "/tabIndex", "value": 3}, {"op": "remove", "path": "/cart/0"}]
        await ws.send(json.dumps({"type": "patch", "seq": 4, "base": 2, "ops": ops}))
        assert await receive(ws) == {"type": "ack", "seq": 4, "rev": 3, "duplicate": False}
        await ws.send(json.dumps({"type": "patch", "seq": 5, "base": 3,
                                  "ops": [{"op": "add", "path": "/cart/0", "value": "z"}, {"op": "test", "path": "/saved", "value": "x"}]}))
        refused = await receive(ws)
        assert refused["type"] == "reject" and refused["seq"] == 5 and refused["code"] == "test_failed", refused
        print("OK json patch", flush=True)

        await ws.send(json.dumps({"type": "ping", "t": 12.5}))
        assert await receive(ws) == {"type": "pong", "t": 12.5}
        print("OK pong", flush=True)

        await ws.send(json.dumps({"type": "teleport", "extra": 1}))
        error = await receive(ws)
        assert error["type"] == "error" and error["code"] == "unknown_type", error
        await ws.send(json.dumps({"type": "ping", "t": 1}))
        assert (await receive(ws))["type"] == "pong"
        print("OK unknown type keeps the connection", flush=True)

        await ws.close(1000)
        print("OK closed", flush=True)


asyncio.run(main(*sys.argv[1:4]))
