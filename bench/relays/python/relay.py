"""Python reference for Tandem's relay benchmarks, on the pinned `websockets` package (asyncio).

A client joins the room named by the request path (/room/NAME) or the query (?room=NAME); every
message it sends goes to every other client in that room, unchanged. Prints `PORT N` once listening.
"""

import argparse
import asyncio
import sys
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import broadcast, serve

rooms: dict[str, set] = {}


def room_name(path: str) -> str:
    parts = urlsplit(path)
    query = parse_qs(parts.query).get("room")
    if query:
        return query[0]
    return parts.path.removeprefix("/room/")


async def relay(connection):
    name = room_name(connection.request.path)
    members = rooms.setdefault(name, set())
    members.add(connection)
    try:
        async for message in connection:
            # broadcast() writes without awaiting each peer; a peer whose buffer is full is skipped,
            # the library's documented behaviour for fan-out.
            broadcast([peer for peer in members if peer is not connection], message)
    finally:
        members.discard(connection)
        if not members:
            rooms.pop(name, None)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    options = parser.parse_args()
    async with serve(relay, options.host, options.port, max_size=64 * 1024, ping_interval=None,
                     compression=None) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"PORT {port}", flush=True)
        await asyncio.get_running_loop().create_future()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
