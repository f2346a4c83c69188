#!/usr/bin/env python3
"""Reads one of packaging/kubernetes/*.yaml (values for a bitnami chart) and
prints, as shell assignments for scripts/release/images.sh, what a pod of that chart
would run: the initContainer (image, command, where the shared volume is
mounted), where the server container mounts that volume, and the server's
configuration (written to a file under OUT_DIR). Without Kubernetes, the
script then runs exactly these with podman.

It fails unless the values hold together as a pod would need: one
initContainer writing into an emptyDir volume that the server container
mounts, a loadmodule line pointing into that mount, and the same recipe for
replicas as for the primary. It also fails unless every container and volume
the values add passes the "restricted" Pod Security Standard, so that a
namespace enforcing it admits the pods (the charts' own containers pass it
with their defaults); the initContainer's podman options then carry its
securityContext (user, capabilities, privilege escalation, root file
system) into the run.

    scripts/release/images-recipes.py packaging/kubernetes/bitnami-valkey.yaml OUT_DIR
"""

import pathlib
import shlex
import sys
from typing import Any, Iterator, List, Tuple

import yaml

# chart file -> (the section holding the pod's extras, where the chart takes
# extra configuration, the official image whose stand-in plays the server,
# cluster mode)
CHARTS = {
    "bitnami-redis.yaml": ("master", "commonConfiguration", "docker.io/library/redis:8", False),
    "bitnami-redis-cluster.yaml": ("redis", "redis.configmap", "docker.io/library/redis:8", True),
    "bitnami-valkey.yaml": ("primary", "commonConfiguration", "docker.io/valkey/valkey:9", False),
}


# The "restricted" Pod Security Standard (Kubernetes' Pod Security
# admission, restricted level, latest version), for a container and the
# volumes the values add: the volume types it allows, the capabilities a
# container may add back after dropping ALL, and the seccomp profiles,
# SELinux types and AppArmor profiles it accepts.
RESTRICTED_VOLUME_TYPES = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim", "projected", "secret"}
RESTRICTED_ADDED_CAPABILITIES = {"NET_BIND_SERVICE"}
RESTRICTED_SECCOMP = {"RuntimeDefault", "Localhost"}
RESTRICTED_SELINUX_TYPES = {"", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"}
RESTRICTED_APPARMOR = {"RuntimeDefault", "Localhost"}


def fail(path: pathlib.Path, problem: str) -> None:
    sys.exit(f"images-recipes: {path.name}: {problem}")


def shown(value: Any) -> str:
    """A field's value in a problem's text."""
    return "unset" if value is None else repr(value)


def walk(node: Any, where: str = "") -> Iterator[Tuple[str, Any]]:
    """Every value in the values tree, with its path (master.initContainers[0])."""
    yield where, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from walk(value, f"{where}.{key}" if where else str(key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from walk(value, f"{where}[{index}]")


def restricted_container_problems(container: dict) -> List[str]:
    """What keeps a container out of a namespace at the restricted level.
    The fields are the container's own: a chart sets the pod's
    securityContext for its own containers, never for the ones its values
    add, so each must carry its own. Beyond the profile, runAsUser must name
    a uid other than root (the image's user), so that runAsNonRoot holds
    whatever user the image declares."""
    context = container.get("securityContext") or {}
    problems = []
    if context.get("privileged") is True:
        problems.append("privileged is true")
    if context.get("allowPrivilegeEscalation") is not False:
        problems.append(f"allowPrivilegeEscalation is {shown(context.get('allowPrivilegeEscalation'))}, not false")
    if context.get("runAsNonRoot") is not True:
        problems.append(f"runAsNonRoot is {shown(context.get('runAsNonRoot'))}, not true")
    if not isinstance(context.get("runAsUser"), int) or context["runAsUser"] == 0:
        problems.append(f"runAsUser is {shown(context.get('runAsUser'))}, not a uid other than 0")
    capabilities = context.get("capabilities") or {}
    if "ALL" not in (capabilities.get("drop") or []):
        problems.append(f"capabilities.drop is {shown(capabilities.get('drop'))}, without ALL")
    added = set(capabilities.get("add") or []) - RESTRICTED_ADDED_CAPABILITIES
    if added:
        problems.append(f"capabilities.add holds {sorted(added)}")
    seccomp = (context.get("seccompProfile") or {}).get("type")
    if seccomp not in RESTRICTED_SECCOMP:
        problems.append(f"seccompProfile.type is {shown(seccomp)}, not RuntimeDefault or Localhost")
    if context.get("procMount", "Default") != "Default":
        problems.append(f"procMount is {context['procMount']!r}")
    selinux = context.get("seLinuxOptions") or {}
    if selinux.get("type", "") not in RESTRICTED_SELINUX_TYPES or selinux.get("user") or selinux.get("role"):
        problems.append(f"seLinuxOptions {selinux!r}")
    apparmor = (context.get("appArmorProfile") or {}).get("type")
    if apparmor is not None and apparmor not in RESTRICTED_APPARMOR:
        problems.append(f"appArmorProfile.type is {apparmor!r}")
    if (context.get("windowsOptions") or {}).get("hostProcess"):
        problems.append("windowsOptions.hostProcess is true")
    if any(port.get("hostPort") for port in container.get("ports") or []):
        problems.append("a port sets hostPort")
    return problems


def restricted_problems(values: Any) -> List[str]:
    """Every container (a mapping with a name and an image) and every volume
    (in extraVolumes) the values define, held to the restricted profile."""
    problems = []
    for where, node in walk(values):
        if isinstance(node, dict) and "name" in node and "image" in node:
            problems += [f"{where} ({node['name']}): {problem}" for problem in restricted_container_problems(node)]
        if where.endswith("extraVolumes") and isinstance(node, list):
            for index, volume in enumerate(node):
                types = set(volume) - {"name"}
                if not types <= RESTRICTED_VOLUME_TYPES:
                    problems.append(f"{where}[{index}] ({volume.get('name')}): a {'/'.join(sorted(types))} volume")
    return problems


def podman_options(container: dict) -> List[str]:
    """The container's securityContext as podman run options. Podman's
    default seccomp profile is the runtime's default (RuntimeDefault)."""
    context = container["securityContext"]
    options = ["--user", f"{context['runAsUser']}:{context.get('runAsGroup', context['runAsUser'])}"]
    options += ["--cap-drop", "ALL"]
    for capability in (context.get("capabilities") or {}).get("add") or []:
        options += ["--cap-add", capability]
    options += ["--security-opt", "no-new-privileges"]
    if context.get("readOnlyRootFilesystem"):
        options.append("--read-only")
    return options


def main() -> None:
    path, out_dir = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    if path.name not in CHARTS:
        fail(path, f"no chart known for this file (known: {', '.join(CHARTS)})")
    section, config_key, server_image, cluster = CHARTS[path.name]
    values = yaml.safe_load(path.read_text())
    problems = restricted_problems(values)
    if problems:
        fail(path, "the restricted Pod Security Standard refuses: " + "; ".join(problems))

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
        "init_user": podman_options(init)[1],
    }
    for name, value in assignments.items():
        print(f"{name}={shlex.quote(value)}")
    print("init_command=(" + " ".join(shlex.quote(word) for word in init["command"] + init.get("args", [])) + ")")
    print("init_options=(" + " ".join(shlex.quote(word) for word in podman_options(init)) + ")")


if __name__ == "__main__":
    main()
