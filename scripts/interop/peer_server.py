"""A reference WebSocket server (the `websockets` package) for Tandem's interop tests and wire benchmark.

Usage: peer_server.py [--tls CERT KEY]. With --tls it serves wss:// (the stdlib `ssl` module) with that PEM
certificate chain and key.

Prints "PORT <n>" once listening on 127.0.0.1, then serves until stdin closes. Every message is echoed,
except these text commands:
  "fragment"            -> answers with the text "fragmented" sent as three fragments
  "ping"                -> pings the client, waits for its pong, answers "pong received"
  "big <n>"             -> answers with a text message of n bytes
  "close <code> <why>"  -> closes the connection with that code and reason
When a connection ends it prints "SERVER-CLOSED <code> <reason>" (the code the client sent, or none).
"""
import asyncio
import ssl
import sys

from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed


async def handle(ws):
    try:
        async for message in ws:
            if isinstance(message, str):
                if message == "fragment":
                    await ws.send(["frag", "men", "ted"])
                    continue
                if message == "ping":
                    waiter = await ws.ping(b"py")
                    await asyncio.wait_for(waiter, 5)
                    await ws.send("pong received")
                    continue
                if message.startswith("big "):
                    await ws.send("x" * int(message.split()[1]))
                    continue
                if message.startswith("close "):
                    _, code, reason = message.split(" ", 2)
                    await ws.close(int(code), reason)
                    break
            await ws.send(message)
    except ConnectionClosed:
        pass
    received = ws.protocol.close_rcvd
    code = received.code if received is not None else "none"
    reason = received.reason if received is not None else ""
    print(f"SERVER-CLOSED {code} {reason}", flush=True)


async def main(arguments):
    context = None
    if arguments[:1] == ["--tls"]:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(arguments[1], arguments[2])
    async with serve(handle, "127.0.0.1", 0, max_size=16 * 2**20, compression=None, ping_interval=None, ssl=context) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"PORT {port}", flush=True)
        loop = asyncio.get_running_loop()
        # Serve until the parent closes our stdin (or kills us).
        await loop.run_in_executor(None, sys.stdin.read)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
