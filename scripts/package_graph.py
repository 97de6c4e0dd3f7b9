"""The package's target graph as `swift package dump-package` describes it, with platform conditions: which
targets a product links on a given platform. Shared by scripts/availability-audit and scripts/client-closure."""
import json, os, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
APPLE_PLATFORMS = {"ios", "macos", "tvos", "watchos", "visionos", "maccatalyst"}


def load():
    """The package description as JSON; exits with status 2 when SwiftPM cannot read it."""
    dump = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, capture_output=True, text=True)
    if dump.returncode != 0:
        print(f"swift package dump-package failed: {dump.stderr.strip()}", file=sys.stderr)
        sys.exit(2)
    return json.loads(dump.stdout)


def closure(package, products, platforms):
    """Every target the `products` link on any of `platforms` (names as dump-package spells them: "ios",
    "linux"...): a dependency conditional to other platforms only does not count."""
    targets = {target["name"]: target for target in package["targets"]}
    declared = {product["name"]: product["targets"] for product in package["products"]}
    missing = [product for product in products if product not in declared]
    if missing:
        print(f"no product {', '.join(missing)} in Package.swift", file=sys.stderr)
        sys.exit(2)
    pending = [name for product in products for name in declared[product]]
    found = set()
    while pending:
        name = pending.pop()
        if name in found:
            continue
        found.add(name)
        for dependency in targets[name].get("dependencies", []):
            (_, entry), = dependency.items()
            condition = entry[-1] if isinstance(entry, list) and entry and isinstance(entry[-1], dict) else None
            only = set((condition or {}).get("platformNames", []))
            if only and not only & set(platforms):
                continue
            pending.append(entry[0])
    return found


def swift_modules(package, names):
    """The names among `names` that are Swift targets with sources under Sources/."""
    targets = {target["name"]: target for target in package["targets"]}
    return {name for name in names if targets[name].get("type") != "system-target"
            and os.path.isdir(os.path.join(ROOT, "Sources", name))
            and any(f.endswith(".swift") for _, _, files in os.walk(os.path.join(ROOT, "Sources", name)) for f in files)}
