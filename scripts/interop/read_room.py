"""Joins a Tandem room with a third-party WebSocket client (`websockets`) and Python's own JSON parser.

Usage: read_room.py URL TOKEN CLIENT. Sends hello, reads the welcome's whole state and prints it as one
line of JSON (Python's `json.dumps`, so the reader's re-encoding is checked too), then closes with 1000.
Exits non-zero with a traceback when the welcome does not come or cannot be read.
"""
import asyncio
import json
import sys

from websockets.asyncio.client import connect


async def main(url, token, client):
    async with connect(url, subprotocols=["tandem.v1"], compression=None, ping_interval=None, max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token, "client": client}))
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), timeout=20))
            if message.get("type") == "welcome":
                break
        assert "state" in message, "expected a snapshot welcome"
        print(json.dumps({"rev": message["rev"], "state": message["state"]}), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
