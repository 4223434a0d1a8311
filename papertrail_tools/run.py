"""`papertrail run`: the five services at once under the supervisor, as `papertrail run` and the demo start them."""

import os
import sys

from papertrail_ops.roster import SERVICES, service_port


def run_all(ready_timeout_s: float = 60, port_offset: int = 0) -> int:
    """Run the five services under the supervisor (papertrail_tools/supervisor.py): one log stream, a service that dies
    restarted with backoff; Ctrl-C or SIGTERM stops them upstream first (the harvester first, the query API last)."""
    from papertrail.runtime.logs import resolved_format
    from papertrail.runtime.service import load_settings
    from papertrail.runtime.settings import InfraSettings
    from papertrail_tools import monitoring
    from papertrail_tools.supervisor import Output, run_supervised, service_child

    settings = load_settings(InfraSettings, "run")  # LOG_FORMAT, and a bad shared setting named once, not five times
    ports = {name: service_port(name) + port_offset for name in SERVICES}
    children = [service_child(name, port, os.environ) for name, port in ports.items()]
    note = f"query API: http://127.0.0.1:{ports['query']}/ (docs at /docs)"
    prometheus = monitoring.follow_run(settings, ports)
    if prometheus:
        note += f"; Prometheus: {prometheus}"
    output = Output(resolved_format(settings.log_format, sys.stdout), sys.stdout)
    return run_supervised(children, output, list(SERVICES), note, ready_timeout_s)
