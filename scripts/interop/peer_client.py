"""A reference WebSocket client (the `websockets` package) run against Tandem's server in interop tests.

Usage: peer_client.py URL MODE, where MODE is "client-close" (this side closes with 4100) or "server-close"
(asks the server, by sending "close-me", to close with its own code). Prints "OK <check>" per passed check
and exits non-zero with a traceback on the first failure.
"""
import asyncio
import sys

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed


async def main(url, mode):
    async with connect(url, subprotocols=["tandem.v1"], max_size=16 * 2**20, compression=None, ping_interval=None) as ws:
        assert ws.subprotocol == "tandem.v1", ws.subprotocol
        print("OK subprotocol", flush=True)

        await ws.send("héllo")
        assert await ws.recv() == "héllo"
        print("OK text", flush=True)

        await ws.send(bytes([0, 1, 2, 255]))
        assert await ws.recv() == bytes([0, 1, 2, 255])
        print("OK binary", flush=True)

        await ws.send(["frag", "men", "ted"])
        assert await ws.recv() == "fragmented"
        print("OK fragmented", flush=True)

        big = "0123456789abcdef" * (2**20 // 16)
        await ws.send(big)
        assert await ws.recv() == big
        print("OK large", flush=True)

        waiter = await ws.ping(b"hi")
        await asyncio.wait_for(waiter, 5)
        print("OK ping", flush=True)

        if mode == "client-close":
            await ws.close(4100, "python bye")
            assert ws.protocol.close_rcvd is not None and ws.protocol.close_rcvd.code == 4100, ws.protocol.close_rcvd
            print("OK client-close", flush=True)
        else:
            await ws.send("close-me")
            try:
                await asyncio.wait_for(ws.recv(), 5)
                raise AssertionError("expected the server to close")
            except ConnectionClosed as closed:
                assert closed.rcvd is not None and closed.rcvd.code == 4200, closed.rcvd
                assert closed.rcvd.reason == "swift bye", closed.rcvd.reason
            print("OK server-close", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
