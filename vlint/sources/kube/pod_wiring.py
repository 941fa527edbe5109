"""What the kubelet adds to a pod around its containers' own settings: the environment variables of the
Services of its namespace (service links, VL611) and the probes that restart a container (VL612).

Service links (kubernetes/kubernetes ``pkg/kubelet/envvars/envvars.go`` ``FromServices`` and
``makeLinkVariables``; ``pkg/kubelet/kubelet_pods.go`` ``getServiceEnvVarMap``): for every Service of the
pod's namespace that has a cluster IP (not headless ``clusterIP: None``, not ``type: ExternalName``) the
kubelet sets, with ``NAME`` the Service name upper-cased and ``-`` → ``_``::

    NAME_SERVICE_HOST=<cluster IP>            NAME_SERVICE_PORT=<first port>
    NAME_SERVICE_PORT_<PORTNAME>=<port>       (each named port)
    NAME_PORT=tcp://<cluster IP>:<first port> (Docker links: the first port only)
    NAME_PORT_<port>_TCP=tcp://<ip>:<port>    NAME_PORT_<port>_TCP_PROTO=tcp
    NAME_PORT_<port>_TCP_PORT=<port>          NAME_PORT_<port>_TCP_ADDR=<cluster IP>

unless the pod spec says ``enableServiceLinks: false`` (the default is true). A variable the container
declares itself (``env``/``envFrom``) wins: service variables are added only where the name is not taken.
"""

from __future__ import annotations

from vlint.core.record import record
from vlint.core.span import Span
from vlint.sources.kube.k8s_common import Facts, LineIndex, get, int_value, is_false, items, scalar
from vlint.sources.yaml_nodes import MappingNode, Node


@record(frozen=True, slots=True)
class ServiceEnv:
    """One Service and the variables the kubelet derives from it for the pods of its namespace."""

    name: str
    #: ``metadata.namespace`` as written (None: the namespace the manifest is applied to)
    namespace: str | None
    span: Span
    #: (variable, value as the pod sees it, with ``<cluster IP>`` for the address the cluster assigns)
    variables: tuple[tuple[str, str], ...]


def env_name(service: str) -> str:
    """``makeEnvVariableName``: upper case, ``-`` → ``_``."""
    return service.upper().replace("-", "_")


def read_service(obj: MappingNode, lines: LineIndex) -> ServiceEnv | None:
    """A ``v1`` Service that gives pods environment variables (None for other objects, headless and
    ExternalName Services, and Services whose ports vlint cannot read)."""
    if scalar(get(obj, "kind")) != "Service" or (scalar(get(obj, "apiVersion")) or "v1") != "v1":
        return None
    name_node = get(obj, "metadata", "name")
    name = scalar(name_node)
    spec = get(obj, "spec")
    if not name or name_node is None or not isinstance(spec, MappingNode):
        return None
    if (scalar(get(spec, "type")) or "ClusterIP") == "ExternalName":
        return None
    cluster_ip = scalar(get(spec, "clusterIP"))
    if cluster_ip is not None and cluster_ip.strip() in ("None", ""):
        return None  # headless: IsServiceIPSet is false, no variables
    ports: list[tuple[int, str, str]] = []
    for p in items(get(spec, "ports")):
        number = int_value(get(p, "port"))
        if number is None:
            return None  # a templated port: vlint cannot tell the values (the names are still certain)
        ports.append((number, (scalar(get(p, "protocol")) or "TCP").upper(), scalar(get(p, "name")) or ""))
    if not ports:
        return None
    prefix = env_name(name)
    ip = "<cluster IP>"
    out: list[tuple[str, str]] = [(f"{prefix}_SERVICE_HOST", ip), (f"{prefix}_SERVICE_PORT", str(ports[0][0]))]
    out += [(f"{prefix}_SERVICE_PORT_{env_name(pname)}", str(n)) for n, _, pname in ports if pname]
    out.append((f"{prefix}_PORT", f"{ports[0][1].lower()}://{ip}:{ports[0][0]}"))
    for n, proto, _ in ports:
        base = f"{prefix}_PORT_{n}_{proto}"
        out += [
            (base, f"{proto.lower()}://{ip}:{n}"),
            (f"{base}_PROTO", proto.lower()),
            (f"{base}_PORT", str(n)),
            (f"{base}_ADDR", ip),
        ]
    namespace = scalar(get(obj, "metadata", "namespace"))
    return ServiceEnv(name, namespace, lines.node_span(name_node), tuple(dict.fromkeys(out).keys()))


def same_namespace(a: str | None, b: str | None) -> bool:
    """Two objects of one file land in the same namespace: both unset (applied to the same namespace), or
    equal, with an unset one taken as ``default`` (kubectl's namespace when the context names none)."""
    return (a or "default") == (b or "default")


def service_link_facts(out: Facts, obj: Node, pod: Node, services: list[ServiceEnv], lines: LineIndex) -> None:
    """``k8s_service_env``: the Services whose variables this pod's containers get (none with
    ``enableServiceLinks: false``)."""
    if not services:
        return
    links = get(pod, "enableServiceLinks")
    if is_false(links):
        return
    namespace = scalar(get(obj, "metadata", "namespace"))
    here = tuple(s for s in services if same_namespace(s.namespace, namespace))
    if not here:
        return
    where = "enableServiceLinks: true" if links is not None else "enableServiceLinks unset (true by default)"
    out.set("k8s_service_env", here, here[0].span, f"Services of namespace {namespace or 'default'}; {where}")


#: Kubernetes' defaults for a probe's timing (k8s.io/api core/v1 Probe)
PROBE_DEFAULTS = {"initialDelaySeconds": 0, "periodSeconds": 10, "failureThreshold": 3}
_HANDLERS = ("httpGet", "tcpSocket", "grpc", "exec")


def probe_facts(out: Facts, container: Node, lines: LineIndex) -> None:
    """``liveness_probe`` (its handler and timing, None where a value is not a number) and
    ``startup_probe`` of a container."""
    startup = get(container, "startupProbe")
    if isinstance(startup, MappingNode):
        out.set("startup_probe", True, lines.node_span(startup), "startupProbe")
    key, node = _probe(container, "livenessProbe", lines)
    if node is None or key is None:
        return
    timing: dict[str, int | None] = {}
    for field_name, default in PROBE_DEFAULTS.items():
        v = get(node, field_name)
        timing[field_name] = default if v is None else int_value(v)
    handler = next((h for h in _HANDLERS if get(node, h) is not None), None)
    out.set("liveness_probe", {"handler": handler, **timing}, key, "livenessProbe")


def _probe(container: Node, name: str, lines: LineIndex) -> tuple[Span | None, MappingNode | None]:
    if not isinstance(container, MappingNode):
        return None, None
    for k, v in container.value:
        if scalar(k) == name and isinstance(v, MappingNode):
            return lines.node_span(k), v
    return None, None
