"""Regenerate the machine-log samples of the token-accuracy corpus, byte for byte.

The ``logs/`` samples are synthetic but shaped like what on-call engineers paste: kubectl
tables and events, structured JSON lines, nginx access and error logs, Java, Python and Go
traces, journald and kernel lines, Prometheus metrics and ``top``/``df`` output. Every value
(pod hashes, trace ids, UUIDs, addresses, latencies) comes from one seeded generator, so a
rerun writes the same files. The ``english/`` and ``chinese/`` samples are prose, written or
copied from the repository by hand; this script leaves them alone.

    python bench/tokens/make_corpus.py
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

SEED = 20240514
LOGS = Path(__file__).resolve().parent / "corpus" / "logs"
MAX_CHARS = 5800
START = datetime(2024, 5, 14, 3, 2, 11, 417000, tzinfo=UTC)

KUBE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
SERVICES = (
    "checkout-api",
    "payments-worker",
    "cart-service",
    "inventory-sync",
    "auth-gateway",
    "search-indexer",
    "notification-dispatcher",
    "ledger-api",
)
NAMESPACES = ("payments", "shop", "platform", "identity")
PATHS = (
    "/api/v2/orders",
    "/api/v2/orders/{n}",
    "/api/v2/orders/{n}/items",
    "/v1/charges",
    "/v1/charges/{u}/capture",
    "/api/v1/cart/{u}",
    "/healthz",
    "/static/js/app.{h}.js",
    "/static/css/main.{h}.css",
    "/api/v1/search?q=usb+c+cable&page={n}",
    "/login?next=%2Faccount%2Forders",
    "/api/v1/users/{n}/addresses",
    "/metrics",
)
AGENTS = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/124.0.0.0 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
    "okhttp/4.12.0",
    "kube-probe/1.29",
    "Prometheus/2.51.2",
    "python-requests/2.31.0",
    "Go-http-client/2.0",
)


class Gen:
    """Seeded sources of the identifiers that fill real logs."""

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)

    def hex(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def uuid(self) -> str:
        h = self.hex(32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{self.rng.choice('89ab')}{h[17:20]}-{h[20:]}"

    def kube(self, n: int) -> str:
        return "".join(self.rng.choice(KUBE_ALPHABET) for _ in range(n))

    def pod(self, service: str) -> str:
        return f"{service}-{self.kube(10)}-{self.kube(5)}"

    def private_ip(self) -> str:
        second = self.rng.choice((0, 42, 43))
        return f"10.{second}.{self.rng.randint(0, 31)}.{self.rng.randint(2, 254)}"

    def public_ip(self) -> str:
        net = self.rng.choice(("203.0.113", "198.51.100", "192.0.2"))
        return f"{net}.{self.rng.randint(1, 254)}"

    def node(self) -> str:
        a, b = self.rng.randint(0, 31), self.rng.randint(2, 254)
        return f"ip-10-0-{a}-{b}.eu-west-1.compute.internal"

    def path(self) -> str:
        raw = self.rng.choice(PATHS)
        return raw.format(n=self.rng.randint(1, 99999), u=self.uuid(), h=self.hex(8))

    def ms(self, low: float = 1.0, high: float = 900.0) -> float:
        return round(self.rng.uniform(low, high), 1)


def fit(lines: list[str], limit: int = MAX_CHARS) -> str:
    """The leading lines that fit in ``limit`` characters, newline-terminated."""
    out: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) + 1 > limit:
            break
        out.append(line)
        size += len(line) + 1
    return "\n".join(out) + "\n"


def dedent2(block: str) -> str:
    return "\n".join(line[2:] for line in block.split("\n"))


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def ticks(g: Gen, count: int, max_gap_ms: int = 4000) -> list[datetime]:
    t = START + timedelta(minutes=g.rng.randint(0, 600))
    out = []
    for _ in range(count):
        t += timedelta(microseconds=g.rng.randint(3000, max_gap_ms * 1000))
        out.append(t)
    return out


def age(g: Gen) -> str:
    return g.rng.choice(
        (f"{g.rng.randint(2, 59)}m", f"{g.rng.randint(1, 23)}h", f"{g.rng.randint(1, 40)}d")
    )


def kubectl_get_pods_wide(g: Gen, namespace: str) -> str:
    header = (
        f"{'NAME':<46}{'READY':<8}{'STATUS':<19}{'RESTARTS':<17}{'AGE':<8}{'IP':<15}"
        f"{'NODE':<46}NOMINATED NODE   READINESS GATES"
    )
    lines = [f"$ kubectl get pods -n {namespace} -o wide", header]
    for _ in range(40):
        service = g.rng.choice(SERVICES)
        status, ready, restarts = "Running", "1/1", "0"
        roll = g.rng.random()
        if roll < 0.15:
            status, ready = "CrashLoopBackOff", "0/1"
            restarts = f"{g.rng.randint(5, 60)} ({g.rng.randint(1, 5)}m{g.rng.randint(0, 59)}s ago)"
        elif roll < 0.22:
            status, ready, restarts = "OOMKilled", "0/1", f"{g.rng.randint(1, 9)} (40s ago)"
        elif roll < 0.27:
            status, ready = "Pending", "0/1"
        elif roll < 0.3:
            status, ready = "ImagePullBackOff", "0/2"
        elif roll < 0.5:
            ready = "2/2"
        ip = "<none>" if status == "Pending" else g.private_ip()
        node = "<none>" if status == "Pending" else g.node()
        lines.append(
            f"{g.pod(service):<46}{ready:<8}{status:<19}{restarts:<17}{age(g):<8}{ip:<15}"
            f"{node:<46}<none>           <none>"
        )
    return fit(lines)


def kubectl_describe_pod(g: Gen, namespace: str) -> str:
    service = g.rng.choice(SERVICES)
    pod = g.pod(service)
    rs = pod.rsplit("-", 1)[0]
    node, ip = g.node(), g.private_ip()
    version = f"{g.rng.randint(1, 4)}.{g.rng.randint(0, 30)}.{g.rng.randint(0, 9)}"
    lines = [
        f"$ kubectl describe pod {pod} -n {namespace}",
        f"Name:             {pod}",
        f"Namespace:        {namespace}",
        "Priority:         0",
        f"Service Account:  {service}",
        f"Node:             {node}/{node.split('.')[0][3:].replace('-', '.')}",
        "Start Time:       Tue, 14 May 2024 01:17:52 +0000",
        f"Labels:           app.kubernetes.io/name={service}",
        f"                  app.kubernetes.io/version={version}",
        f"                  pod-template-hash={rs.rsplit('-', 1)[1]}",
        f"Annotations:      checksum/config: {g.hex(64)}",
        "                  prometheus.io/port: 9102",
        "                  prometheus.io/scrape: true",
        "Status:           Running",
        f"IP:               {ip}",
        "IPs:",
        f"  IP:           {ip}",
        f"Controlled By:  ReplicaSet/{rs}",
        "Containers:",
        "  app:",
        f"    Container ID:   containerd://{g.hex(64)}",
        f"    Image:          registry.example.com/{namespace}/{service}:v{version}",
        f"    Image ID:       registry.example.com/{namespace}/{service}@sha256:{g.hex(64)}",
        "    Ports:          8080/TCP, 9102/TCP",
        "    Host Ports:     0/TCP, 0/TCP",
        "    State:          Waiting",
        "      Reason:       CrashLoopBackOff",
        "    Last State:     Terminated",
        "      Reason:       OOMKilled",
        "      Exit Code:    137",
        "      Started:      Tue, 14 May 2024 03:41:07 +0000",
        "      Finished:     Tue, 14 May 2024 03:43:55 +0000",
        "    Ready:          False",
        f"    Restart Count:  {g.rng.randint(8, 40)}",
        "    Limits:",
        "      cpu:     1",
        "      memory:  512Mi",
        "    Requests:",
        "      cpu:      250m",
        "      memory:   384Mi",
        "    Liveness:   http-get http://:8080/healthz delay=10s timeout=2s period=10s #success=1 "
        "#failure=3",
        "    Readiness:  http-get http://:8080/ready delay=5s timeout=1s period=5s #success=1 "
        "#failure=3",
        "    Environment:",
        "      JAVA_TOOL_OPTIONS:       -XX:MaxRAMPercentage=75.0 -XX:+ExitOnOutOfMemoryError",
        f"      DATABASE_URL:            <set to the key 'url' in secret '{service}-db'>",
        "      OTEL_EXPORTER_OTLP_ENDPOINT:  http://otel-collector.observability:4317",
        "    Mounts:",
        f'      /etc/{service}/config.yaml from config (ro,path="config.yaml")',
        "      /var/run/secrets/kubernetes.io/serviceaccount from "
        f"kube-api-access-{g.kube(5)} (ro)",
        "Conditions:",
        "  Type                        Status",
        "  PodReadyToStartContainers   True",
        "  Initialized                 True",
        "  Ready                       False",
        "  ContainersReady             False",
        "  PodScheduled                True",
        "Volumes:",
        "  config:",
        "    Type:      ConfigMap (a volume populated by a ConfigMap)",
        f"    Name:      {service}-config",
        "    Optional:  false",
        "QoS Class:                   Burstable",
        "Node-Selectors:              kubernetes.io/os=linux",
        "Tolerations:                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s",
        "                             node.kubernetes.io/unreachable:NoExecute op=Exists for 300s",
        "Events:",
        "  Type     Reason     Age                   From     Message",
        "  ----     ------     ----                  ----     -------",
        f"  Normal   Pulled     12m (x{g.rng.randint(5, 20)} over 2h)   kubelet  "
        f'Container image "registry.example.com/{namespace}/{service}:v{version}" already '
        "present on machine",
        "  Normal   Created    12m (x14 over 2h)     kubelet  Created container app",
        "  Normal   Started    12m (x14 over 2h)     kubelet  Started container app",
        "  Warning  Unhealthy  11m (x31 over 2h)     kubelet  Readiness probe failed: Get "
        f'"http://{ip}:8080/ready": dial tcp {ip}:8080: connect: connection refused',
        f"  Warning  BackOff    2m4s (x{g.rng.randint(200, 600)} over 2h)  kubelet  Back-off "
        f"restarting failed container app in pod {pod}_{namespace}({g.uuid()})",
    ]
    return fit(lines)


def kubectl_get_events(g: Gen, namespace: str) -> str:
    lines = [
        f"$ kubectl get events -n {namespace} --sort-by=.lastTimestamp",
        "LAST SEEN   TYPE      REASON              OBJECT                                          "
        "MESSAGE",
    ]
    for _ in range(45):
        service = g.rng.choice(SERVICES)
        pod = g.pod(service)
        choice = g.rng.randint(0, 7)
        if choice == 0:
            row = (
                "Normal",
                "Scheduled",
                f"pod/{pod}",
                f"Successfully assigned {namespace}/{pod} to {g.node()}",
            )
        elif choice == 1:
            row = (
                "Warning",
                "BackOff",
                f"pod/{pod}",
                f"Back-off restarting failed container app in pod {pod}_{namespace}({g.uuid()})",
            )
        elif choice == 2:
            row = (
                "Warning",
                "Unhealthy",
                f"pod/{pod}",
                f'Liveness probe failed: Get "http://{g.private_ip()}:8080/healthz": '
                "context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
            )
        elif choice == 3:
            row = (
                "Warning",
                "FailedScheduling",
                f"pod/{pod}",
                "0/12 nodes are available: 3 Insufficient memory, 9 node(s) didn't match "
                "Pod's node affinity/selector. preemption: 0/12 nodes are available: "
                "12 No preemption victims found for incoming pod.",
            )
        elif choice == 4:
            row = (
                "Normal",
                "Pulling",
                f"pod/{pod}",
                f'Pulling image "registry.example.com/{namespace}/{service}:v1.'
                f'{g.rng.randint(0, 40)}.{g.rng.randint(0, 9)}"',
            )
        elif choice == 5:
            rs = pod.rsplit("-", 1)[0]
            row = ("Normal", "SuccessfulCreate", f"replicaset/{rs}", f"Created pod: {pod}")
        elif choice == 6:
            row = (
                "Warning",
                "Evicted",
                f"pod/{pod}",
                "The node was low on resource: memory. Threshold quantity: 100Mi, available: "
                f"{g.rng.randint(20, 99)}Mi. Container app was using {g.rng.randint(900, 1900)}"
                "Mi, request is 512Mi, has larger consumption of memory.",
            )
        else:
            row = (
                "Normal",
                "ScalingReplicaSet",
                f"deployment/{service}",
                f"Scaled up replica set {pod.rsplit('-', 1)[0]} to {g.rng.randint(2, 12)}",
            )
        seen = f"{g.rng.randint(1, 59)}{g.rng.choice('sm')}"
        lines.append(f"{seen:<12}{row[0]:<10}{row[1]:<20}{row[2]:<48}{row[3]}")
    return fit(lines)


def kubectl_logs_spring(g: Gen, namespace: str) -> str:
    service = g.rng.choice(SERVICES)
    lines = [f"$ kubectl logs -n {namespace} {g.pod(service)} --tail=200"]
    classes = (
        "c.e.checkout.web.OrderController",
        "o.s.w.s.m.m.a.ExceptionHandlerExceptionResolver",
        "c.z.hikari.pool.HikariPool",
        "c.e.checkout.client.PaymentClient",
        "o.a.k.c.c.internals.ConsumerCoordinator",
    )
    for t in ticks(g, 60, 900):
        level = g.rng.choice(("INFO", "INFO", "INFO", "WARN", "ERROR"))
        thread = f"nio-8080-exec-{g.rng.randint(1, 40)}"
        cls = g.rng.choice(classes)
        if "Hikari" in cls:
            msg = (
                f"HikariPool-1 - Connection is not available, request timed out after "
                f"{g.rng.randint(20000, 30000)}ms (total={g.rng.randint(18, 20)}, active=20, "
                f"idle=0, waiting={g.rng.randint(1, 90)})"
            )
        elif "Payment" in cls:
            msg = (
                f"POST https://payments.internal:8443/v1/charges failed status=503 "
                f"latency={g.rng.randint(100, 30000)}ms traceId={g.hex(32)} attempt="
                f"{g.rng.randint(1, 3)}/3"
            )
        elif "Consumer" in cls:
            msg = (
                f"[Consumer clientId=consumer-orders-{g.rng.randint(1, 9)}, groupId=orders] "
                f"Revoke previously assigned partitions orders-{g.rng.randint(0, 11)}, "
                f"orders-{g.rng.randint(12, 23)}"
            )
        else:
            msg = (
                f"order {g.uuid()} created items={g.rng.randint(1, 12)} "
                f"total={g.rng.randint(100, 99999) / 100:.2f} EUR in {g.rng.randint(8, 900)}ms"
            )
        lines.append(f"{iso(t)} {level:>5} 1 --- [{thread:>15}] {cls:<40} : {msg}")
    return fit(lines)


def kubectl_logs_logfmt(g: Gen, namespace: str) -> str:
    service = g.rng.choice(SERVICES)
    lines = [f"$ kubectl logs -n {namespace} deploy/{service} -c app --since=15m"]
    for t in ticks(g, 70, 1500):
        roll = g.rng.random()
        upstream = f"{g.private_ip()}:5432"
        if roll < 0.3:
            lines.append(
                f'time="{t.strftime("%Y-%m-%dT%H:%M:%SZ")}" level=error msg="query failed" '
                f'err="dial tcp {upstream}: connect: connection refused" db=orders attempt='
                f"{g.rng.randint(1, 5)} request_id={g.uuid()}"
            )
        elif roll < 0.45:
            lines.append(
                f'time="{t.strftime("%Y-%m-%dT%H:%M:%SZ")}" level=warning msg="slow request" '
                f"method=GET path={g.path()} status=200 duration={g.ms(500, 9000)}ms "
                f"bytes={g.rng.randint(100, 90000)}"
            )
        else:
            lines.append(
                f'time="{t.strftime("%Y-%m-%dT%H:%M:%SZ")}" level=info msg="request served" '
                f"method={g.rng.choice(('GET', 'POST', 'PUT'))} path={g.path()} status="
                f"{g.rng.choice((200, 200, 201, 204, 404))} duration={g.ms()}ms "
                f"remote={g.private_ip()}:{g.rng.randint(30000, 60999)}"
            )
    return fit(lines)


def json_lines(g: Gen, _namespace: str) -> str:
    lines = []
    for t in ticks(g, 40, 800):
        service = g.rng.choice(SERVICES)
        level = g.rng.choice(("info", "info", "warn", "error"))
        status = 200 if level == "info" else g.rng.choice((499, 500, 502, 503, 504))
        method = g.rng.choice(("GET", "POST", "PUT", "DELETE"))
        record = (
            f'{{"ts":"{iso(t)}","level":"{level}","service":"{service}",'
            f'"pod":"{g.pod(service)}","trace_id":"{g.hex(32)}","span_id":"{g.hex(16)}",'
            f'"request_id":"{g.uuid()}","msg":"'
            + ("request completed" if level == "info" else "upstream request failed")
            + f'","http":{{"method":"{method}","path":"{g.path()}","status":{status},'
            f'"duration_ms":{g.ms(1, 30000)},"bytes_out":{g.rng.randint(0, 65000)}}}'
        )
        if level == "error":
            record += (
                f',"error":{{"type":"UpstreamTimeout","message":"context deadline exceeded",'
                f'"upstream":"{g.private_ip()}:8080","retries":{g.rng.randint(0, 3)}}}'
            )
        lines.append(record + "}")
    return fit(lines)


def json_zap(g: Gen, _namespace: str) -> str:
    lines = []
    for t in ticks(g, 45, 1200):
        epoch = f"{t.timestamp():.6f}"
        level = g.rng.choice(("info", "debug", "warn", "error"))
        caller = g.rng.choice(
            (
                "server/handler.go:214",
                "store/postgres.go:88",
                "queue/consumer.go:131",
                "cache/redis.go:57",
            )
        )
        lines.append(
            f'{{"level":"{level}","ts":{epoch},"caller":"{caller}","msg":"'
            + g.rng.choice(
                (
                    "cache miss",
                    "message processed",
                    "lock wait exceeded",
                    "retrying publish",
                    "batch flushed",
                )
            )
            + f'","tenant_id":{g.rng.randint(1000, 99999)},"key":"cart:{g.uuid()}",'
            f'"offset":{g.rng.randint(10**6, 10**9)},"partition":{g.rng.randint(0, 23)},'
            f'"latency":"{g.ms(0.1, 400)}ms","attempt":{g.rng.randint(1, 4)}}}'
        )
    return fit(lines)


def json_alert_payload(g: Gen, namespace: str) -> str:
    alerts = []
    for _ in range(4):
        service = g.rng.choice(SERVICES)
        pod = g.pod(service)
        alerts.append(
            "    {\n"
            '      "status": "firing",\n'
            '      "labels": {\n'
            '        "alertname": "KubePodCrashLooping",\n'
            f'        "namespace": "{namespace}",\n'
            f'        "pod": "{pod}",\n'
            f'        "container": "app",\n'
            f'        "instance": "{g.private_ip()}:8080",\n'
            '        "severity": "critical"\n'
            "      },\n"
            '      "annotations": {\n'
            f'        "description": "Pod {namespace}/{pod} (app) is in waiting state '
            '(reason: \\"CrashLoopBackOff\\").",\n'
            '        "runbook_url": "https://runbooks.example.com/kubernetes/'
            'kubepodcrashlooping",\n'
            '        "summary": "Pod is crash looping."\n'
            "      },\n"
            f'      "startsAt": "{iso(START + timedelta(seconds=g.rng.randint(0, 9000)))}",\n'
            '      "endsAt": "0001-01-01T00:00:00Z",\n'
            '      "generatorURL": "http://prometheus.monitoring:9090/graph?g0.expr='
            "max_over_time%28kube_pod_container_status_waiting_reason%7Breason%3D%22"
            'CrashLoopBackOff%22%7D%5B5m%5D%29+%3E%3D+1&g0.tab=1",\n'
            f'      "fingerprint": "{g.hex(16)}"\n'
            "    }"
        )
    text = (
        "{\n"
        '  "receiver": "pagerduty-critical",\n'
        '  "status": "firing",\n'
        '  "alerts": [\n' + ",\n".join(alerts) + "\n  ],\n"
        '  "groupLabels": {"alertname": "KubePodCrashLooping"},\n'
        f'  "commonLabels": {{"namespace": "{namespace}", "severity": "critical"}},\n'
        '  "externalURL": "http://alertmanager.monitoring:9093",\n'
        '  "version": "4",\n'
        f'  "groupKey": "{{}}:{{alertname=\\"KubePodCrashLooping\\"}}",\n'
        '  "truncatedAlerts": 0\n'
        "}"
    )
    return fit(text.split("\n"))


def json_pretty_pod(g: Gen, namespace: str) -> str:
    service = g.rng.choice(SERVICES)
    pod = g.pod(service)
    statuses = []
    for name in ("app", "envoy"):
        statuses.append(
            "      {\n"
            f'        "containerID": "containerd://{g.hex(64)}",\n'
            f'        "image": "registry.example.com/{namespace}/{name}:'
            f'v1.{g.rng.randint(0, 30)}.0",\n'
            f'        "imageID": "registry.example.com/{namespace}/{name}@sha256:{g.hex(64)}",\n'
            '        "lastState": {\n'
            '          "terminated": {\n'
            f'            "containerID": "containerd://{g.hex(64)}",\n'
            '            "exitCode": 137,\n'
            '            "finishedAt": "2024-05-14T03:43:55Z",\n'
            '            "reason": "OOMKilled",\n'
            '            "startedAt": "2024-05-14T03:41:07Z"\n'
            "          }\n"
            "        },\n"
            f'        "name": "{name}",\n'
            '        "ready": false,\n'
            f'        "restartCount": {g.rng.randint(3, 30)},\n'
            '        "started": false,\n'
            '        "state": {\n'
            '          "waiting": {\n'
            f'            "message": "back-off 5m0s restarting failed container={name} '
            f'pod={pod}_{namespace}({g.uuid()})",\n'
            '            "reason": "CrashLoopBackOff"\n'
            "          }\n"
            "        }\n"
            "      }"
        )
    text = (
        f"$ kubectl get pod {pod} -n {namespace} -o json | jq .status\n"
        "{\n"
        '  "conditions": [\n'
        '    {"lastProbeTime": null, "lastTransitionTime": "2024-05-14T01:17:52Z", '
        '"status": "True", "type": "Initialized"},\n'
        '    {"lastProbeTime": null, "lastTransitionTime": "2024-05-14T03:43:56Z", '
        '"message": "containers with unready status: [app]", "reason": "ContainersNotReady", '
        '"status": "False", "type": "Ready"}\n'
        "  ],\n"
        '  "containerStatuses": [\n' + ",\n".join(dedent2(s) for s in statuses) + "\n  ],\n"
        f'  "hostIP": "{g.private_ip()}",\n'
        '  "phase": "Running",\n'
        f'  "podIP": "{g.private_ip()}",\n'
        '  "qosClass": "Burstable",\n'
        '  "startTime": "2024-05-14T01:17:52Z"\n'
        "}"
    )
    return fit(text.split("\n"))


def nginx_access(g: Gen, _namespace: str) -> str:
    lines = []
    for t in ticks(g, 40, 400):
        method = g.rng.choice(("GET", "GET", "GET", "POST", "PUT"))
        status = g.rng.choice((200, 200, 200, 200, 304, 301, 404, 499, 502, 504))
        rt = g.rng.uniform(0.001, 3.0) if status < 500 else g.rng.uniform(30.0, 60.0)
        referer = g.rng.choice(("-", "https://shop.example.com/", "https://shop.example.com/cart"))
        lines.append(
            f"{g.public_ip()} - - [{t.strftime('%d/%b/%Y:%H:%M:%S +0000')}] "
            f'"{method} {g.path()} HTTP/1.1" {status} {g.rng.randint(0, 48000)} '
            f'"{referer}" "{g.rng.choice(AGENTS)}" rt={rt:.3f} '
            f'uct="0.00{g.rng.randint(0, 9)}" uht="{rt:.3f}" urt="{rt:.3f}"'
        )
    return fit(lines)


def nginx_access_upstream(g: Gen, _namespace: str) -> str:
    lines = []
    for t in ticks(g, 40, 300):
        status = g.rng.choice((200, 200, 200, 503, 502, 429))
        lines.append(
            f"{g.private_ip()} - {g.rng.choice(('-', 'svc-batch', 'svc-mobile'))} "
            f"[{t.strftime('%d/%b/%Y:%H:%M:%S +0000')}] "
            f'"{g.rng.choice(("GET", "POST"))} {g.path()} HTTP/2.0" {status} '
            f'{g.rng.randint(0, 9000)} "-" "{g.rng.choice(AGENTS)}" {g.rng.randint(200, 4000)} '
            f"{g.rng.uniform(0.001, 5):.3f} [{g.rng.choice(NAMESPACES)}-"
            f"{g.rng.choice(SERVICES)}-8080] [] {g.private_ip()}:8080 {g.rng.randint(0, 9000)} "
            f"{g.rng.uniform(0.001, 5):.3f} {status} {g.hex(32)}"
        )
    return fit(lines)


def nginx_error(g: Gen, _namespace: str) -> str:
    lines = []
    for t in ticks(g, 40, 2500):
        worker = g.rng.randint(20, 40)
        conn = g.rng.randint(1000, 99999)
        client, upstream = g.public_ip(), g.private_ip()
        path = g.path()
        kind = g.rng.randint(0, 3)
        stamp = t.strftime("%Y/%m/%d %H:%M:%S")
        if kind == 0:
            body = (
                "upstream timed out (110: Connection timed out) while reading response "
                "header from upstream"
            )
        elif kind == 1:
            body = "connect() failed (111: Connection refused) while connecting to upstream"
        elif kind == 2:
            body = (
                "upstream prematurely closed connection while reading response header from upstream"
            )
        else:
            body = (
                f'open() "/usr/share/nginx/html{path.split("?")[0]}" failed '
                "(2: No such file or directory)"
            )
        lines.append(
            f"{stamp} [error] {worker}#{worker}: *{conn} {body}, client: {client}, server: "
            f'api.example.com, request: "GET {path} HTTP/1.1", upstream: '
            f'"http://{upstream}:8080{path}", host: "api.example.com"'
        )
    return fit(lines)


def stack_java(g: Gen, _namespace: str) -> str:
    frames = [
        "org.postgresql.core.v3.QueryExecutorImpl.receiveErrorResponse(QueryExecutorImpl.java:2713)",
        "org.postgresql.core.v3.QueryExecutorImpl.processResults(QueryExecutorImpl.java:2401)",
        "org.postgresql.core.v3.QueryExecutorImpl.execute(QueryExecutorImpl.java:368)",
        "org.postgresql.jdbc.PgStatement.executeInternal(PgStatement.java:498)",
        "org.postgresql.jdbc.PgPreparedStatement.executeQuery(PgPreparedStatement.java:134)",
        "com.zaxxer.hikari.pool.ProxyPreparedStatement.executeQuery(ProxyPreparedStatement.java:52)",
        "org.hibernate.sql.results.jdbc.internal.DeferredResultSetAccess.executeQuery("
        "DeferredResultSetAccess.java:246)",
        "com.example.checkout.repository.OrderRepositoryImpl.findOpenOrders("
        "OrderRepositoryImpl.java:87)",
        "com.example.checkout.service.OrderService.reconcile(OrderService.java:212)",
        "com.example.checkout.service.OrderService$$SpringCGLIB$$0.reconcile(<generated>)",
        "org.springframework.aop.framework.CglibAopProxy$DynamicAdvisedInterceptor.intercept("
        "CglibAopProxy.java:713)",
        "com.example.checkout.web.OrderController.reconcile(OrderController.java:64)",
        "java.base/jdk.internal.reflect.DirectMethodHandleAccessor.invoke("
        "DirectMethodHandleAccessor.java:103)",
        "java.base/java.lang.reflect.Method.invoke(Method.java:580)",
        "org.springframework.web.servlet.DispatcherServlet.doDispatch(DispatcherServlet.java:1089)",
        "org.apache.catalina.core.ApplicationFilterChain.doFilter(ApplicationFilterChain.java:162)",
        "org.apache.tomcat.util.net.NioEndpoint$SocketProcessor.doRun(NioEndpoint.java:1740)",
        "java.base/java.lang.Thread.run(Thread.java:1583)",
    ]
    t = ticks(g, 1)[0]
    lines = [
        f"{iso(t)} ERROR 1 --- [nio-8080-exec-{g.rng.randint(1, 40)}] "
        "o.a.c.c.C.[.[.[/].[dispatcherServlet]    : Servlet.service() for servlet "
        "[dispatcherServlet] in context with path [] threw exception [Request processing failed: "
        "org.springframework.dao.QueryTimeoutException: could not execute statement] with root "
        "cause",
        "org.postgresql.util.PSQLException: ERROR: canceling statement due to statement timeout",
        "  Where: SQL statement \"SELECT o.id, o.customer_id FROM orders o WHERE o.status = 'OPEN' "
        "AND o.updated_at < now() - interval '15 minutes'\"",
    ]
    lines += [f"\tat {f}" for f in frames]
    lines.append("Caused by: java.net.SocketTimeoutException: Read timed out")
    lines += [
        "\tat java.base/sun.nio.ch.NioSocketImpl.timedRead(NioSocketImpl.java:278)",
        "\tat java.base/sun.nio.ch.NioSocketImpl.implRead(NioSocketImpl.java:304)",
        "\tat java.base/java.net.Socket$SocketInputStream.read(Socket.java:1099)",
        "\tat org.postgresql.core.VisibleBufferedInputStream.readMore("
        "VisibleBufferedInputStream.java:161)",
        f"\t... {g.rng.randint(30, 60)} common frames omitted",
        "",
        f"{iso(t + timedelta(seconds=2))}  WARN 1 --- [   scheduling-1] "
        "c.e.checkout.service.ReconcileJob        : reconcile run "
        f"{g.uuid()} aborted after {g.rng.randint(15000, 31000)}ms, will retry in 60s",
        f"{iso(t + timedelta(seconds=3))} ERROR 1 --- [nio-8080-exec-3] "
        "c.e.checkout.web.GlobalErrorHandler      : Unhandled exception traceId="
        f"{g.hex(32)}",
        "java.lang.OutOfMemoryError: Java heap space",
        "\tat java.base/java.util.Arrays.copyOf(Arrays.java:3541)",
        "\tat java.base/java.io.ByteArrayOutputStream.ensureCapacity("
        "ByteArrayOutputStream.java:100)",
        "\tat com.fasterxml.jackson.core.util.ByteArrayBuilder.toByteArray("
        "ByteArrayBuilder.java:118)",
        "\tat com.example.checkout.export.CsvExporter.export(CsvExporter.java:45)",
    ]
    return fit(lines)


def stack_python(g: Gen, _namespace: str) -> str:
    t = ticks(g, 1)[0]
    lines = [
        f"[{t.strftime('%Y-%m-%d %H:%M:%S,')}{t.microsecond // 1000:03d}] ERROR in app: "
        f"Exception on /api/v1/cart/{g.uuid()} [GET]",
        "Traceback (most recent call last):",
        '  File "/usr/local/lib/python3.12/site-packages/flask/app.py", line 1473, in wsgi_app',
        "    response = self.full_dispatch_request()",
        "               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        '  File "/usr/local/lib/python3.12/site-packages/flask/app.py", line 882, in '
        "full_dispatch_request",
        "    rv = self.handle_user_exception(e)",
        '  File "/usr/local/lib/python3.12/site-packages/flask/app.py", line 880, in '
        "full_dispatch_request",
        "    rv = self.dispatch_request()",
        '  File "/app/cart/views.py", line 118, in get_cart',
        "    items = repo.load_items(cart_id, include_prices=True)",
        '  File "/app/cart/repository.py", line 64, in load_items',
        '    rows = self.session.execute(stmt, {"cart_id": cart_id}).fetchall()',
        '  File "/usr/local/lib/python3.12/site-packages/sqlalchemy/orm/session.py", line 2351, '
        "in execute",
        "    return self._execute_internal(",
        '  File "/usr/local/lib/python3.12/site-packages/sqlalchemy/engine/base.py", line 1967, '
        "in _exec_single_context",
        "    self.dialect.do_execute(",
        '  File "/usr/local/lib/python3.12/site-packages/sqlalchemy/engine/default.py", line 924, '
        "in do_execute",
        "    cursor.execute(statement, parameters)",
        "psycopg2.errors.QueryCanceled: canceling statement due to statement timeout",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "Traceback (most recent call last):",
        '  File "/app/cart/views.py", line 118, in get_cart',
        "    items = repo.load_items(cart_id, include_prices=True)",
        "sqlalchemy.exc.OperationalError: (psycopg2.errors.QueryCanceled) canceling statement "
        "due to statement timeout",
        "",
        "[SQL: SELECT cart_items.id, cart_items.sku, cart_items.qty, prices.amount_cents "
        "FROM cart_items JOIN prices ON prices.sku = cart_items.sku WHERE cart_items.cart_id = "
        "%(cart_id)s]",
        f"[parameters: {{'cart_id': '{g.uuid()}'}}]",
        "(Background on this error at: https://sqlalche.me/e/20/e3q8)",
        f"{t.strftime('%Y-%m-%d %H:%M:%S')} [{g.rng.randint(7, 64)}] [WARNING] Worker with pid "
        f"{g.rng.randint(100, 9999)} was terminated due to signal 9",
        f"{t.strftime('%Y-%m-%d %H:%M:%S')} [{g.rng.randint(7, 64)}] [INFO] Booting worker with "
        f"pid: {g.rng.randint(100, 9999)}",
        "Traceback (most recent call last):",
        '  File "/app/worker/tasks.py", line 212, in send_receipt',
        "    resp = client.post(url, json=payload, timeout=(3.05, 10))",
        '  File "/usr/local/lib/python3.12/site-packages/requests/adapters.py", line 713, in send',
        "    raise ReadTimeout(e, request=request)",
        "requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='mail.internal.example.com', "
        "port=443): Read timed out. (read timeout=10)",
        "KeyError: 'currency'",
    ]
    return fit(lines)


def stack_go(g: Gen, _namespace: str) -> str:
    lines = [
        "panic: runtime error: invalid memory address or nil pointer dereference",
        f"[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x{g.hex(7)}]",
        "",
    ]
    funcs = (
        (
            "github.com/example/ledger/internal/api.(*Handler).PostTransfer",
            "/src/internal/api/transfer.go",
        ),
        (
            "github.com/example/ledger/internal/store.(*Postgres).Balance",
            "/src/internal/store/balance.go",
        ),
        ("net/http.HandlerFunc.ServeHTTP", "/usr/local/go/src/net/http/server.go"),
        (
            "github.com/go-chi/chi/v5.(*Mux).routeHTTP",
            "/go/pkg/mod/github.com/go-chi/chi/v5@v5.0.12/mux.go",
        ),
        (
            "go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp.(*middleware).serveHTTP",
            "/go/pkg/mod/go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp@v0.51.0/"
            "handler.go",
        ),
        ("net/http.serverHandler.ServeHTTP", "/usr/local/go/src/net/http/server.go"),
        ("net/http.(*conn).serve", "/usr/local/go/src/net/http/server.go"),
    )
    for gid in range(5):
        state = (
            "running"
            if gid == 0
            else g.rng.choice(("IO wait", "select", "chan receive", "semacquire, 2 minutes"))
        )
        lines.append(f"goroutine {g.rng.randint(1, 90000)} [{state}]:")
        for name, path in funcs[g.rng.randint(0, 2) :]:
            args = ", ".join(f"0xc000{g.hex(6)}" for _ in range(g.rng.randint(1, 4)))
            lines.append(f"{name}({args})")
            lines.append(f"\t{path}:{g.rng.randint(40, 3300)} +0x{g.hex(3)}")
        lines.append("created by net/http.(*Server).Serve in goroutine 1")
        lines.append(f"\t/usr/local/go/src/net/http/server.go:3285 +0x{g.hex(3)}")
        lines.append("")
    return fit(lines)


def syslog_journal(g: Gen, _namespace: str) -> str:
    host = g.node().split(".")[0]
    lines = [f'$ journalctl -u kubelet --since "{START.strftime("%Y-%m-%d %H:%M")}" --no-pager']
    for t in ticks(g, 40, 5000):
        stamp = t.strftime("%b %d %H:%M:%S")
        klog = f"{t.strftime('%m%d %H:%M:%S.')}{t.microsecond:06d}"
        service = g.rng.choice(SERVICES)
        pod = g.pod(service)
        kind = g.rng.randint(0, 3)
        if kind == 0:
            body = (
                f'E{klog}    1187 pod_workers.go:1298] "Error syncing pod, skipping" '
                f'err="failed to \\"StartContainer\\" for \\"app\\" with CrashLoopBackOff: '
                f'\\"back-off 5m0s restarting failed container=app pod={pod}_payments'
                f'({g.uuid()})\\"" pod="payments/{pod}" podUID="{g.uuid()}"'
            )
        elif kind == 1:
            body = (
                f'I{klog}    1187 prober.go:107] "Probe failed" probeType="Readiness" '
                f'pod="payments/{pod}" podUID="{g.uuid()}" containerName="app" '
                f'probeResult="failure" output="Get \\"http://{g.private_ip()}:8080/ready\\": '
                'context deadline exceeded"'
            )
        elif kind == 2:
            body = (
                f'W{klog}    1187 eviction_manager.go:377] "Eviction manager: attempting '
                f'to reclaim" resourceName="memory"'
            )
        else:
            body = (
                f'I{klog}    1187 kubelet.go:2440] "SyncLoop (PLEG): event for pod" '
                f'pod="payments/{pod}" event={{"ID":"{g.uuid()}","Type":"ContainerDied",'
                f'"Data":"{g.hex(64)}"}}'
            )
        lines.append(f"{stamp} {host} kubelet[1187]: {body}")
    return fit(lines)


def syslog_dmesg(g: Gen, _namespace: str) -> str:
    lines = ["$ dmesg -T | tail -n 60"]
    uptime = g.rng.uniform(100000, 9000000)
    for _ in range(60):
        uptime += g.rng.uniform(0.001, 40)
        pid = g.rng.randint(1000, 4000000)
        kind = g.rng.randint(0, 4)
        if kind == 0:
            body = (
                f"Memory cgroup out of memory: Killed process {pid} (java) total-vm:"
                f"{g.rng.randint(10**6, 10**7)}kB, anon-rss:{g.rng.randint(10**5, 10**6)}kB, "
                f"file-rss:{g.rng.randint(1000, 90000)}kB, shmem-rss:0kB, UID:1000 pgtables:"
                f"{g.rng.randint(1000, 9999)}kB oom_score_adj:{g.rng.randint(900, 999)}"
            )
        elif kind == 1:
            body = (
                f"oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=cri-containerd-"
                f"{g.hex(64)}.scope,mems_allowed=0,oom_memcg=/kubepods.slice/"
                f"kubepods-burstable.slice/kubepods-burstable-pod{g.uuid().replace('-', '_')}"
                f".slice,task=java,pid={pid},uid=1000"
            )
        elif kind == 2:
            body = (
                f"EXT4-fs error (device nvme1n1p1): ext4_find_entry:1682: inode #"
                f"{g.rng.randint(10**5, 10**7)}: comm kubelet: reading directory lblock 0"
            )
        elif kind == 3:
            body = (
                f"nvme nvme1: I/O {g.rng.randint(1, 1000)} (I/O Cmd) QID "
                f"{g.rng.randint(1, 8)} timeout, aborting"
            )
        else:
            body = (
                "TCP: request_sock_TCP: Possible SYN flooding on port 8080. Sending cookies. "
                "Check SNMP counters."
            )
        lines.append(f"[{uptime:14.6f}] {body}")
    return fit(lines)


def syslog_messages(g: Gen, _namespace: str) -> str:
    host = f"db-{g.rng.randint(1, 9):02d}.dc2.internal"
    lines = []
    for t in ticks(g, 50, 20000):
        stamp = t.strftime("%b %d %H:%M:%S")
        kind = g.rng.randint(0, 4)
        if kind == 0:
            line = (
                f"sshd[{g.rng.randint(1000, 99999)}]: Accepted publickey for deploy from "
                f"{g.private_ip()} port {g.rng.randint(30000, 65000)} ssh2: ED25519 SHA256:"
                f"{g.hex(43)}"
            )
        elif kind == 1:
            line = (
                "systemd[1]: postgresql@16-main.service: Main process exited, code=killed, "
                "status=9/KILL"
            )
        elif kind == 2:
            line = (
                f"CRON[{g.rng.randint(1000, 99999)}]: (postgres) CMD (/usr/local/bin/"
                f"pg_backup.sh --target s3://backups-eu-west-1/db-{g.rng.randint(1, 9)} "
                f">> /var/log/pg_backup.log 2>&1)"
            )
        elif kind == 3:
            line = (
                f"postgres[{g.rng.randint(1000, 99999)}]: [{g.rng.randint(1, 9)}-1] "
                f"{t.strftime('%Y-%m-%d %H:%M:%S')} UTC LOG:  checkpoint complete: wrote "
                f"{g.rng.randint(100, 90000)} buffers ({g.rng.uniform(0, 30):.1f}%); 0 WAL "
                f"file(s) added, {g.rng.randint(0, 9)} removed; write={g.rng.uniform(0, 300):.3f}"
                f" s, sync={g.rng.uniform(0, 3):.3f} s, total={g.rng.uniform(0, 300):.3f} s"
            )
        else:
            line = (
                f"kernel: [{g.rng.uniform(1000, 900000):.6f}] blk_update_request: I/O error, "
                f"dev sdb, sector {g.rng.randint(10**6, 10**9)} op 0x1:(WRITE) flags 0x800 "
                f"phys_seg {g.rng.randint(1, 64)} prio class 0"
            )
        lines.append(f"{stamp} {host} {line}")
    return fit(lines)


def prom_metrics(g: Gen, namespace: str) -> str:
    lines = [
        f"$ curl -s http://{g.private_ip()}:9102/metrics | grep -E 'http_|process_'",
        "# HELP http_server_requests_seconds Duration of HTTP server requests.",
        "# TYPE http_server_requests_seconds histogram",
    ]
    for uri in ("/api/v2/orders", "/v1/charges", "/healthz"):
        for status in ("200", "500", "503"):
            total = 0
            for le in ("0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "+Inf"):
                total += g.rng.randint(0, 5000)
                lines.append(
                    f'http_server_requests_seconds_bucket{{method="GET",namespace="{namespace}",'
                    f'status="{status}",uri="{uri}",le="{le}"}} {total}'
                )
            lines.append(
                f'http_server_requests_seconds_sum{{method="GET",status="{status}",uri="{uri}"}} '
                f"{g.rng.uniform(10, 90000):.6f}"
            )
            lines.append(
                f'http_server_requests_seconds_count{{method="GET",status="{status}",uri="{uri}"}} '
                f"{total}"
            )
    lines += [
        "# HELP process_resident_memory_bytes Resident memory size in bytes.",
        "# TYPE process_resident_memory_bytes gauge",
        f"process_resident_memory_bytes {g.rng.randint(10**8, 10**9)}",
        "# HELP process_open_fds Number of open file descriptors.",
        "# TYPE process_open_fds gauge",
        f"process_open_fds {g.rng.randint(10, 4000)}",
    ]
    return fit(lines)


def prom_node(g: Gen, _namespace: str) -> str:
    instance = f"{g.private_ip()}:9100"
    lines = [f"$ curl -s http://{instance}/metrics | grep -v '^#' | grep -E 'node_(cpu|disk|fs)'"]
    for cpu in range(8):
        for mode in ("idle", "iowait", "irq", "nice", "softirq", "steal", "system", "user"):
            lines.append(
                f'node_cpu_seconds_total{{cpu="{cpu}",mode="{mode}"}} {g.rng.uniform(0, 9e6):.2f}'
            )
    for dev in ("nvme0n1", "nvme1n1"):
        for metric in (
            "reads_completed_total",
            "writes_completed_total",
            "io_time_seconds_total",
            "read_bytes_total",
            "written_bytes_total",
        ):
            lines.append(f'node_disk_{metric}{{device="{dev}"}} {g.rng.uniform(0, 9e11):.6e}')
    for mount in ("/", "/var/lib/containerd", "/data"):
        for metric in ("avail_bytes", "files_free", "size_bytes"):
            lines.append(
                f'node_filesystem_{metric}{{device="/dev/nvme1n1p1",fstype="ext4",'
                f'mountpoint="{mount}"}} {g.rng.randint(0, 2 * 10**12)}'
            )
    return fit(lines)


def top_output(g: Gen, _namespace: str) -> str:
    lines = [
        "top - 03:47:12 up 41 days,  6:12,  2 users,  load average: 17.42, 14.08, 9.77",
        "Tasks: 412 total,   9 running, 403 sleeping,   0 stopped,   0 zombie",
        "%Cpu(s): 71.3 us, 18.2 sy,  0.0 ni,  2.1 id,  7.9 wa,  0.0 hi,  0.5 si,  0.0 st",
        "MiB Mem :  64263.2 total,    812.4 free,  61022.7 used,   2428.1 buff/cache",
        "MiB Swap:      0.0 total,      0.0 free,      0.0 used.   2211.9 avail Mem",
        "",
        "    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND",
    ]
    commands = (
        "java",
        "postgres",
        "kubelet",
        "containerd",
        "envoy",
        "node",
        "python3",
        "fluent-bit",
        "kswapd0",
        "jbd2/nvme0n1p1-8",
        "sshd",
        "prometheus",
    )
    for _ in range(45):
        lines.append(
            f"{g.rng.randint(1, 4000000):>7} "
            f"{g.rng.choice(('root', 'postgres', '1000', 'nobody')):<9}"
            f" 20   0 {g.rng.randint(10**4, 3 * 10**7):>7} {g.rng.randint(1000, 9 * 10**6):>6} "
            f"{g.rng.randint(100, 90000):>6} {g.rng.choice('RSSSD')} {g.rng.uniform(0, 390):>5.1f} "
            f"{g.rng.uniform(0, 40):>5.1f} {g.rng.randint(0, 9999):>5}:{g.rng.randint(0, 59):02d}."
            f"{g.rng.randint(0, 99):02d} {g.rng.choice(commands)}"
        )
    return fit(lines)


def df_output(g: Gen, _namespace: str) -> str:
    lines = ["$ df -h", "Filesystem      Size  Used Avail Use% Mounted on"]
    mounts = (
        ("/dev/nvme0n1p1", 100, "/"),
        ("/dev/nvme1n1p1", 500, "/var/lib/containerd"),
        ("/dev/nvme2n1p1", 200, "/var/lib/kubelet"),
        ("/dev/nvme3n1p1", 2000, "/data"),
    )
    for dev, size, mount in mounts:
        used = g.rng.randint(size // 10, size)
        lines.append(
            f"{dev:<15} {size:>4}G {used:>4}G {size - used:>4}G {100 * used // size:>3}% {mount}"
        )
    lines.append("/dev/nvme0n1p15  105M  6.1M   99M   6% /boot/efi")
    lines.append("tmpfs             32G     0   32G   0% /dev/shm")
    for _ in range(14):
        used = g.rng.randint(440, 500)
        lines.append(
            f"overlay          500G  {used}G  {500 - used:>3}G  {used // 5:>3}% "
            f"/run/containerd/io.containerd.runtime.v2.task/k8s.io/{g.hex(64)}/rootfs"
        )
    lines += [
        "",
        "$ df -i /var/lib/containerd",
        "Filesystem       Inodes   IUsed IFree IUse% Mounted on",
    ]
    inodes = g.rng.randint(10**7, 4 * 10**7)
    lines.append(f"/dev/nvme1n1p1 {inodes} {inodes}     0  100% /var/lib/containerd")
    lines += [
        "",
        "$ free -m",
        "               total        used        free      shared  buff/cache   available",
    ]
    lines.append("Mem:           64263       61022         812          41        2428        2211")
    lines.append("Swap:              0           0           0")
    return fit(lines)


SAMPLES: dict[str, tuple[Callable[[Gen, str], str], str]] = {
    "kubectl-get-pods-wide-payments": (kubectl_get_pods_wide, "payments"),
    "kubectl-get-pods-wide-shop": (kubectl_get_pods_wide, "shop"),
    "kubectl-describe-pod-oomkilled": (kubectl_describe_pod, "payments"),
    "kubectl-describe-pod-identity": (kubectl_describe_pod, "identity"),
    "kubectl-get-events": (kubectl_get_events, "shop"),
    "kubectl-get-events-platform": (kubectl_get_events, "platform"),
    "kubectl-logs-spring": (kubectl_logs_spring, "payments"),
    "kubectl-logs-logfmt": (kubectl_logs_logfmt, "shop"),
    "json-request-lines": (json_lines, ""),
    "json-request-lines-2": (json_lines, ""),
    "json-zap-consumer": (json_zap, ""),
    "json-alertmanager-webhook": (json_alert_payload, "payments"),
    "json-pod-status": (json_pretty_pod, "shop"),
    "nginx-access-combined": (nginx_access, ""),
    "nginx-access-ingress": (nginx_access_upstream, ""),
    "nginx-error": (nginx_error, ""),
    "stack-java-spring": (stack_java, ""),
    "stack-python-flask": (stack_python, ""),
    "stack-go-panic": (stack_go, ""),
    "syslog-journalctl-kubelet": (syslog_journal, ""),
    "syslog-dmesg-oom": (syslog_dmesg, ""),
    "syslog-messages-db-host": (syslog_messages, ""),
    "prom-http-histogram": (prom_metrics, "payments"),
    "prom-node-exporter": (prom_node, ""),
    "top-cpu-iowait": (top_output, ""),
    "df-disk-full": (df_output, ""),
}


def main() -> None:
    LOGS.mkdir(parents=True, exist_ok=True)
    for name, (make, namespace) in sorted(SAMPLES.items()):
        text = make(Gen(f"{SEED}:{name}"), namespace)
        (LOGS / f"{name}.txt").write_text(text, encoding="utf-8")
        print(f"{name}.txt  {len(text):>5} chars")


if __name__ == "__main__":
    main()
