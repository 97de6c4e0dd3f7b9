"""Mints a Tandem token with PyJWT, as an app's backend does (docs/CLIENT.md, "Tokens from your backend").

Usage: mint_token.py SECRET USER ROOM ROLE [NAME]. Prints the token.
"""
import sys
import time

import jwt


def mint(secret, user, room, role, name=None, lifetime=600):
    claims = {"sub": user, "room": room, "role": role, "exp": int(time.time()) + lifetime}
    if name:
        claims["name"] = name
    return jwt.encode(claims, secret, algorithm="HS256")


if __name__ == "__main__":
    print(mint(*sys.argv[1:6]), flush=True)
