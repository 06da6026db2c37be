#!/usr/bin/env python3
"""CI check: the dev profiles CI builds with outside Sincro's workspace give every package the
settings the workspace gives it.

- external/lease-primary/Cargo.toml: CI builds that crate into Sincro's target directory right
  after Sincro's own tests; with the same settings it reuses every compiled dependency.
- ci/package-profile.toml: the profiles of `cargo publish --dry-run`'s verification builds.

With any difference, those builds compile every dependency again (minutes of CI). Sincro's
crates are workspace members in the root (the top-level `[profile.dev]` applies to them) and
dependencies elsewhere (`"*"` and their named overrides apply), so the check compares each
package's *effective* settings.

Usage: python3 ci/profiles.py  (from the repository's root; exit 1 names each difference)
"""

import subprocess
import sys
import tomllib

EXTERNAL = "external/lease-primary/Cargo.toml"
PACKAGING = "ci/package-profile.toml"
MEMBERS = {"sincro", "sincro-harness", "sincro-checkers", "sincro-algorithms"}


def dev_profile(path):
    with open(path, "rb") as f:
        return tomllib.load(f).get("profile", {}).get("dev", {})


def effective(profile, name, member):
    """The settings `name` is built with under `profile` (`member`: a workspace member)."""
    top = {k: v for k, v in profile.items() if k != "package"}
    if member:
        return top
    packages = profile.get("package", {})
    return {**top, **packages.get("*", {}), **packages.get(name, {})}


def graph(args):
    """The names of the packages `cargo tree args` builds on this platform."""
    tree = subprocess.check_output(
        ["cargo", "tree", *args, "--prefix", "none", "--format", "{p}"], text=True
    )
    return {line.split()[0] for line in tree.splitlines() if line.strip()}


def compare(root, path, names, member_here):
    """Differences between the root's and `path`'s settings for each of `names`;
    `member_here(name)`: the ways `name` is built under `path` (as a member or not)."""
    other = dev_profile(path)
    errors = []
    for name in sorted(names):
        want = effective(root, name, name in MEMBERS)
        for member in member_here(name):
            got = effective(other, name, member)
            if want != got:
                errors.append(f"{path}: {name} is built with {got}, in Sincro with {want}")
    for name in other.get("package", {}):
        if name != "*" and name not in names:
            errors.append(f"{path} names `{name}`, which it does not build (cargo warns)")
    return errors


def main():
    root = dev_profile("Cargo.toml")
    external = graph(["--manifest-path", EXTERNAL, "--features", "cli"]) - {"lease-primary"}
    # A crate's verification builds it as the member of a workspace of its own, and the other
    # Sincro crates as registry dependencies; no tests, so no dev-dependencies.
    packaged = graph(["--workspace", "-e", "normal,build"])
    errors = compare(root, EXTERNAL, external, lambda _: [False])
    errors += compare(
        root, PACKAGING, packaged, lambda n: [True, False] if n in MEMBERS else [False]
    )
    for e in errors:
        print(e)
    if errors:
        print(f"{len(errors)} difference(s): make their [profile.dev] match Cargo.toml's")
        return 1
    print(
        f"the dev profiles agree on the {len(external)} packages of the external crate "
        f"and the {len(packaged)} of the packaged crates"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
