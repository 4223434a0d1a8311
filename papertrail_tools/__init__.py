"""Developer and operator tooling, apart from the runtime: the `papertrail` command's wiring, the local stack, the
replay server, the demo, the settings-doc generator and the KaTeX installer. No service imports it."""
