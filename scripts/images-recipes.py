#!/usr/bin/env python3
"""Reads one of packaging/kubernetes/*.yaml (values for a bitnami chart) and
prints, as shell assignments for scripts/images.sh, what a pod of that chart
would run: the initContainer (image, command, where the shared volume is
mounted), where the server container mounts that volume, and the server's
configuration (written to a file under OUT_DIR). Without Kubernetes, the
script then runs exactly these with podman.

It fails unless the values hold together as a pod would need: one
initContainer writing into an emptyDir volume that the server container
mounts, a loadmodule line pointing into that mount, and the same recipe for
replicas as for the primary.

    scripts/images-recipes.py packaging/kubernetes/bitnami-valkey.yaml OUT_DIR
"""

import pathlib
import shlex
import sys

import yaml

# chart file -> (the section holding the pod's extras, where the chart takes
# extra configuration, the official image whose stand-in plays the server,
# cluster mode)
CHARTS = {
    "bitnami-redis.yaml": ("master", "commonConfiguration", "docker.io/library/redis:8", False),
    "bitnami-redis-cluster.yaml": ("redis", "redis.configmap", "docker.io/library/redis:8", True),
    "bitnami-valkey.yaml": ("primary", "commonConfiguration", "docker.io/valkey/valkey:9", False),
}


def fail(path: pathlib.Path, problem: str) -> None:
    sys.exit(f"images-recipes: {path.name}: {problem}")


def main() -> None:
    path, out_dir = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    if path.name not in CHARTS:
        fail(path, f"no chart known for this file (known: {', '.join(CHARTS)})")
    section, config_key, server_image, cluster = CHARTS[path.name]
    values = yaml.safe_load(path.read_text())

    config = values
    for key in config_key.split("."):
        config = config[key]
    pod = values[section]
    if "replica" in values and values["replica"] != {k: pod[k] for k in values["replica"]}:
        fail(path, "the replicas' volumes, mounts or initContainers differ from the primary's")

    (volume,) = pod["extraVolumes"]
    if volume.get("emptyDir") != {}:
        fail(path, "the shared volume is not an emptyDir")
    (init,) = pod["initContainers"]
    (init_mount,) = [m["mountPath"] for m in init["volumeMounts"] if m["name"] == volume["name"]]
    (server_mount,) = [m["mountPath"] for m in pod["extraVolumeMounts"] if m["name"] == volume["name"]]
    loads = [line.split()[1] for line in config.splitlines() if line.startswith("loadmodule ")]
    if len(loads) != 1 or not loads[0].startswith(server_mount.rstrip("/") + "/"):
        fail(path, f"the configuration must load one module from {server_mount}, it loads {loads}")

    out_dir.mkdir(parents=True, exist_ok=True)
    config_file = out_dir / f"{path.stem}.conf"
    # The charts run the server with their own configuration file plus this
    # text; theirs names the data folder on the pod's data volume (here a
    # folder the uid the charts run as may write) and, for a cluster chart,
    # turns cluster mode on.
    config_file.write_text(config + "\ndir /tmp\n" + ("cluster-enabled yes\n" if cluster else ""))
    config_file.chmod(0o644)

    assignments = {
        "server_image": server_image,
        "init_image": init["image"],
        "init_mount": init_mount,
        "server_mount": server_mount,
        "config_file": str(config_file),
        "cluster": "yes" if cluster else "no",
    }
    for name, value in assignments.items():
        print(f"{name}={shlex.quote(value)}")
    print("init_command=(" + " ".join(shlex.quote(word) for word in init["command"] + init.get("args", [])) + ")")


if __name__ == "__main__":
    main()
