"""Harvester: fetches new and revised records from each source on its schedule and publishes them raw."""
